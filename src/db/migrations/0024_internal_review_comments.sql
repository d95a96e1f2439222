-- A reviewer's comment is either for the investor (the portal shows it beside the field) or an internal note of
-- the organization's team, which never reaches the portal, a mail or the API. Comments written before this were
-- all shown to the investor.
alter table review_comments add column for_investor boolean not null default true;
alter table review_comments alter column for_investor drop default;
