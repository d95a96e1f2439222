-- A personal line the person who started a transaction in the console wrote to the investor: the invitation mail
-- quotes it. Null for a transaction started through the API, or without one.
alter table transactions add column invitation_note text check (char_length(invitation_note) <= 1000);
