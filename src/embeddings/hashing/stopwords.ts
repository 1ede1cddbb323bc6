/** Frequent English function words that carry no topic; dropped before hashing (a stateless stand-in for IDF). */
export const ENGLISH_STOPWORDS: readonly string[] = [
  'a', 'about', 'above', 'after', 'again', 'against', 'all', 'also', 'am', 'an', 'and', 'any', 'are', 'as', 'at',
  'be', 'because', 'been', 'before', 'being', 'below', 'between', 'both', 'but', 'by', 'can', 'could', 'did', 'do',
  'does', 'doing', 'down', 'during', 'each', 'few', 'for', 'from', 'further', 'had', 'has', 'have', 'having', 'he',
  'her', 'here', 'hers', 'herself', 'him', 'himself', 'his', 'how', 'i', 'if', 'in', 'into', 'is', 'it', 'its',
  'itself', 'just', 'me', 'more', 'most', 'my', 'myself', 'no', 'nor', 'not', 'of', 'off', 'on', 'once', 'only', 'or',
  'other', 'our', 'ours', 'ourselves', 'out', 'over', 'own', 'same', 'she', 'should', 'so', 'some', 'such', 'than',
  'that', 'the', 'their', 'theirs', 'them', 'themselves', 'then', 'there', 'these', 'they', 'this', 'those', 'through',
  'to', 'too', 'under', 'until', 'up', 'very', 'was', 'we', 'were', 'what', 'when', 'where', 'which', 'while', 'who',
  'whom', 'why', 'will', 'with', 'would', 'you', 'your', 'yours', 'yourself', 'yourselves',
  'across', 'along', 'already', 'although', 'always', 'among', 'another', 'around', 'beyond', 'despite', 'either',
  'etc', 'even', 'ever', 'every', 'however', 'least', 'less', 'many', 'may', 'might', 'much', 'must', 'neither',
  'never', 'often', 'onto', 'per', 'quite', 'rather', 'several', 'shall', 'since', 'still', 'therefore', 'though',
  'throughout', 'thus', 'toward', 'towards', 'unless', 'upon', 'via', 'well', 'whether', 'whose', 'within', 'without',
  'yet',
];
