import { loadSciFact } from './datasets.js';
import { benchSciFactEnrich } from './sciFactEnrich.js';
for (const t of await benchSciFactEnrich(loadSciFact())) {
console.log(t.title);
for (const r of t.rows) console.log(r.map((x) => (typeof x === 'number' ? x.toFixed(4) : x)).join(' | '));
}
