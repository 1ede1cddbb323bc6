-- Statistics for the chunk columns migration 009 added. Without them the planner guesses that a third of the chunks
-- pass the expiry test, and on stores of some ten thousand chunks it then prefers an exact scan to the HNSW index
-- (measured: SciFact's vector lane at 90 ms instead of 4 ms until autovacuum analysed the table). Autovacuum analyses
-- only after enough rows change, which an upgraded store that is mostly read may not see for a long time.
ANALYZE chunks;
