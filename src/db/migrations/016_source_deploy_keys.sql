-- GIT sources over ssh: the deploy key, sealed with AES-256-GCM under CAIRN_SECRET_KEY ({v, keyId, iv, tag, data}
-- plus its public half and fingerprint), and the ssh host keys the source trusts (given, or learned on first contact).
ALTER TABLE sources ADD COLUMN deploy_key jsonb;
ALTER TABLE sources ADD COLUMN ssh_known_hosts text;
