-- The sweep at start (files/orphan-sweep.ts) asks, a page of stored keys at a time, which ones a file row names.
create index files_storage_key_idx on files (storage_key);
