-- A recipient's event run by staff on the recipient's behalf, with the paper form they received: the event names
-- the form, and so does each revision it submitted, which then counts as complete whatever its online answers lack
-- (the signed paper stands for them).
alter table transaction_events add column paper_file_id uuid references files (id);
alter table transaction_process_revisions add column paper_file_id uuid references files (id);
create index transaction_events_paper_file_id_idx on transaction_events (paper_file_id) where paper_file_id is not null;
create index transaction_process_revisions_paper_file_id_idx on transaction_process_revisions (paper_file_id)
  where paper_file_id is not null;
