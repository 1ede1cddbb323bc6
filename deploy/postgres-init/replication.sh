#!/usr/bin/env bash
# Runs once, when the Postgres data volume is created: lets the cairn user stream WAL to a read replica
# (docker-compose.yml's postgres-replica) with its password.
set -euo pipefail
echo "host replication ${POSTGRES_USER:-cairn} all scram-sha-256" >> "$PGDATA/pg_hba.conf"
