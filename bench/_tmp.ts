import AhoCorasick from 'modern-ahocorasick';
import { generatedEntities } from './nameScaleData.js';
import { MentionMatcher, namePatterns, foldForMatching } from '../src/graph/mentions/MentionMatcher.js';
import { WordIndex } from '../src/graph/mentions/queryEntities.js';
const e = generatedEntities(100000).map((x) => ({ entityId: x.id, name: x.name, aliases: x.aliases }));
let t = performance.now(); WordIndex.of(e); console.log('wordindex', performance.now() - t);
t = performance.now(); const pats = e.flatMap((n) => namePatterns(n.name, n.aliases).map((p) => ({ pattern: p, data: n.entityId }))); console.log('patterns', pats.length, performance.now() - t);
t = performance.now(); new AhoCorasick(pats); console.log('ac', performance.now() - t);
t = performance.now(); new MentionMatcher(e); console.log('matcher', performance.now() - t);
