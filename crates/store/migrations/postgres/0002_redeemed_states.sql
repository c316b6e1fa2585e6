-- Request states already redeemed: a sealed `requestState` may be used once, so its nonce
-- is kept here until the state would have expired anyway.
CREATE TABLE redeemed_states (
    nonce         TEXT   NOT NULL PRIMARY KEY,
    expires_at_ms BIGINT NOT NULL
);

CREATE INDEX redeemed_states_expires ON redeemed_states (expires_at_ms);
