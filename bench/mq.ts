import { benchMusique } from './musique.js';
const limit = Number(process.argv[2] ?? '100');
const share = process.argv[3] ? Number(process.argv[3]) : undefined;
const t = await benchMusique({ limit, ...(share !== undefined ? { graphShare: share } : {}) });
console.log(t.title);
for (const r of t.rows) console.log(r.map((x) => (typeof x === 'number' ? x.toFixed(3) : x)).join(' | '));
