-- The portrait of a kept scan: the JPEG of the holder's portrait crop, kept only when the
-- caller asked for images (`include_images`) and the scan is kept. It lives in the scan's
-- own row, so it has the scan's owner and expiry and goes with it (delete, sweeper).
-- No other image (the photo, the page) is ever stored.
ALTER TABLE scans ADD COLUMN portrait BLOB;
