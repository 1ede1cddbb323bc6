-- The import or sync job whose work an audit entry records, so that undoing the job reverts all of it.
ALTER TABLE audit_log ADD COLUMN job_id text;
CREATE INDEX audit_log_job ON audit_log (job_id, id) WHERE job_id IS NOT NULL;
