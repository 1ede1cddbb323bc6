-- Import jobs are leased: a RUNNING job belongs to its runner until `locked_until`, which the runner renews while it
-- works. A job whose lease ran out (its instance died) is claimed again by any instance and resumes where the
-- committed items and batches left it; `attempts` counts the claims, so a job that keeps killing its instance stops.
ALTER TABLE import_jobs ADD COLUMN locked_until timestamptz(3);
ALTER TABLE import_jobs ADD COLUMN attempts integer NOT NULL DEFAULT 0;
-- Jobs RUNNING from before leases: their heartbeat plus the old one-minute staleness is their lease.
UPDATE import_jobs SET locked_until = coalesce(heartbeat_at, now()) + interval '60 seconds', attempts = 1 WHERE status = 'RUNNING';
