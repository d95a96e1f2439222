-- The Portfolio service: customer instances (its tenants), their API keys, and the portfolio data they
-- export: companies, the funds that hold them, company updates and investments. Every row carries
-- instance_id, and every record's key is (instance_id, id): ids come from customers' imports, so the same id
-- in two instances names two different records.
--
-- Imports are the only writers. Each one takes the instance row's lock, raises its revision by one and
-- stamps what it writes with that revision, so revisions count commits in order. A list walk remembers the
-- revision its first page saw and only ever covers records created up to it (created_revision): records
-- added during the walk never shift it, and its total stays exact.
--
-- Times are stored to the millisecond, as the API shows them, so a cursor holds a row's exact sort key.

create table portfolio_instances (
  id uuid primary key default gen_random_uuid(),
  slug text not null unique check (slug ~ '^[a-z0-9][a-z0-9-]{1,62}$'),
  name text not null check (length(trim(name)) > 0),
  -- The number of committed imports.
  revision bigint not null default 0,
  -- The number of companies, as of the last import: what GET /companies reports as total without counting.
  companies_count bigint not null default 0,
  created_at timestamptz not null default clock_timestamp()
);

create table portfolio_api_keys (
  id uuid primary key default gen_random_uuid(),
  instance_id uuid not null references portfolio_instances (id) on delete cascade,
  name text not null check (length(trim(name)) > 0),
  -- What may be shown of the key: its type prefix and the first characters of its secret part.
  display_prefix text not null,
  -- SHA-256 of the whole key; the key itself is never stored.
  secret_hash bytea not null unique,
  created_at timestamptz not null default clock_timestamp(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
create index portfolio_api_keys_instance_id_idx on portfolio_api_keys (instance_id, created_at);

create table portfolio_funds (
  instance_id uuid not null references portfolio_instances (id) on delete cascade,
  id uuid not null,
  name text not null check (length(trim(name)) > 0),
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  updated_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  primary key (instance_id, id)
);

create table portfolio_companies (
  instance_id uuid not null references portfolio_instances (id) on delete cascade,
  id uuid not null,
  legal_name text not null check (length(trim(legal_name)) > 0),
  created_at timestamptz not null,
  updated_at timestamptz not null,
  created_revision bigint not null,
  updated_revision bigint not null,
  primary key (instance_id, id)
);
-- GET /companies walks (created_at, id); incremental sync filters on updated_at.
create index portfolio_companies_walk_idx on portfolio_companies (instance_id, created_at, id);
-- created_revision included: the count of an updatedSince walk is then an index-only scan.
create index portfolio_companies_updated_idx on portfolio_companies (instance_id, updated_at)
  include (created_revision);

create table portfolio_company_funds (
  instance_id uuid not null,
  company_id uuid not null,
  fund_id uuid not null,
  primary key (instance_id, company_id, fund_id),
  foreign key (instance_id, company_id) references portfolio_companies (instance_id, id) on delete cascade,
  foreign key (instance_id, fund_id) references portfolio_funds (instance_id, id) on delete cascade
);
create index portfolio_company_funds_fund_idx on portfolio_company_funds (instance_id, fund_id);

create table portfolio_updates (
  instance_id uuid not null,
  id uuid not null,
  company_id uuid not null,
  title text not null,
  update_date timestamptz not null,
  cash_in_bank_amount_value double precision not null,
  cash_in_bank_amount_currency text not null,
  product_updates_summary text,
  business_updates_summary text,
  number_of_customers bigint not null,
  has_new_round boolean,
  new_round_description text,
  runway_in_months double precision,
  summary text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  created_revision bigint not null,
  updated_revision bigint not null,
  primary key (instance_id, id),
  foreign key (instance_id, company_id) references portfolio_companies (instance_id, id) on delete cascade
);
-- GET /company/{id}/updates walks (update_date desc, id desc).
create index portfolio_updates_walk_idx on portfolio_updates (instance_id, company_id, update_date desc, id desc);
create index portfolio_updates_updated_idx on portfolio_updates (instance_id, company_id, updated_at)
  include (created_revision);

create table portfolio_investments (
  instance_id uuid not null,
  id uuid not null,
  company_id uuid not null,
  date timestamptz not null,
  amount_cents bigint not null,
  amount_currency text not null,
  unrealized_value_cents bigint not null,
  unrealized_value_currency text not null,
  fmv_per_share_currency text not null,
  cost_per_share_currency text not null,
  round_size_currency text not null,
  valuation_or_cap_currency text not null,
  round text,
  instrument text,
  shares numeric,
  diluted_shares numeric,
  fmv_per_share_cents bigint,
  cost_per_share_cents bigint,
  discount numeric,
  has_pro_rata_rights boolean,
  has_information_rights boolean,
  round_size_cents bigint,
  has_cap boolean,
  valuation_or_cap_cents bigint,
  co_investors text,
  lead_investor text,
  is_follow_on_investment boolean,
  investment_status text,
  investment_reason text,
  valuation_type text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  created_revision bigint not null,
  updated_revision bigint not null,
  primary key (instance_id, id),
  foreign key (instance_id, company_id) references portfolio_companies (instance_id, id) on delete cascade
);
-- GET /company/{id}/investments walks (date desc, id desc).
create index portfolio_investments_walk_idx on portfolio_investments (instance_id, company_id, date desc, id desc);
create index portfolio_investments_updated_idx on portfolio_investments (instance_id, company_id, updated_at)
  include (created_revision);
