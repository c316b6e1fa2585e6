-- Kept scans: the reading of one document, bound to the principal that asked for it.
-- Images are never stored; `result` is the reading as JSON (the `json` type keeps the text
-- exactly as written, key order included).
-- Times are whole milliseconds since the Unix epoch (UTC), the same representation as the
-- SQLite backend; a scan is alive while `expires_at_ms` is later than the caller's clock.
CREATE TABLE scans (
    id            TEXT   NOT NULL PRIMARY KEY,
    owner         TEXT   NOT NULL,
    created_at_ms BIGINT NOT NULL,
    expires_at_ms BIGINT NOT NULL,
    result        JSON   NOT NULL
);

-- Serves listing a caller's scans newest first, in the cursor's order.
CREATE INDEX scans_owner_created ON scans (owner, created_at_ms DESC, id DESC);

-- Serves the sweeper's purge of expired scans.
CREATE INDEX scans_expires ON scans (expires_at_ms);

-- API keys: the store sees only the hash of each secret, computed by the caller.
CREATE TABLE api_keys (
    id            TEXT   NOT NULL PRIMARY KEY,
    name          TEXT   NOT NULL,
    hash          TEXT   NOT NULL,
    created_at_ms BIGINT NOT NULL,
    revoked_at_ms BIGINT
);

-- A name or a hash may be reused once the key that had it is revoked.
CREATE UNIQUE INDEX api_keys_active_name ON api_keys (name) WHERE revoked_at_ms IS NULL;
CREATE UNIQUE INDEX api_keys_active_hash ON api_keys (hash) WHERE revoked_at_ms IS NULL;
