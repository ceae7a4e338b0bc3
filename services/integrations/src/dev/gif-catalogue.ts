/** The built-in GIFs every local development provider serves. */
export interface CatalogueGif {
  id: string;
  slug: string;
  title: string;
  tags: readonly string[];
  /** Full size; smaller renditions are fractions of it. */
  size: number;
}

export const CATALOGUE: readonly CatalogueGif[] = [
  { id: '1001', slug: 'hello-wave', title: 'Hello Wave', tags: ['hello', 'wave', 'hi'], size: 96 },
  { id: '1002', slug: 'thumbs-up', title: 'Thumbs Up', tags: ['yes', 'ok', 'thumbs up', 'good'], size: 96 },
  { id: '1003', slug: 'party-time', title: 'Party Time', tags: ['party', 'celebrate', 'dance'], size: 96 },
  { id: '1004', slug: 'cat-stretch', title: 'Cat Stretch', tags: ['cat', 'cute', 'animal'], size: 96 },
  { id: '1005', slug: 'happy-dance', title: 'Happy Dance', tags: ['dance', 'happy', 'yay'], size: 96 },
  { id: '1006', slug: 'facepalm', title: 'Facepalm', tags: ['facepalm', 'ugh', 'no'], size: 96 },
  { id: '1007', slug: 'mind-blown', title: 'Mind Blown', tags: ['wow', 'mind blown', 'amazing'], size: 96 },
  { id: '1008', slug: 'good-night', title: 'Good Night', tags: ['night', 'sleep', 'bye'], size: 96 },
];

export const CATEGORIES: readonly { name: string; gifId: string }[] = [
  { name: 'hello', gifId: '1001' },
  { name: 'party', gifId: '1003' },
  { name: 'cat', gifId: '1004' },
  { name: 'dance', gifId: '1005' },
  { name: 'wow', gifId: '1007' },
];

export const TRENDING_TERMS: readonly string[] = ['hello', 'party', 'cat', 'dance', 'wow', 'good night', 'thumbs up'];

/** The GIFs matching a query (by title or tag), best first; every GIF when nothing matches, so a search always shows something. */
export function matching(q: string): CatalogueGif[] {
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  const score = (g: CatalogueGif) => words.filter((w) => g.title.toLowerCase().includes(w) || g.tags.some((t) => t.includes(w))).length;
  const hits = CATALOGUE.filter((g) => score(g) > 0).sort((a, b) => score(b) - score(a));
  return hits.length > 0 ? [...hits, ...CATALOGUE.filter((g) => !hits.includes(g))] : [...CATALOGUE];
}

/** Terms from the catalogue that start with or contain the query. */
export function suggestionsFor(q: string): string[] {
  const lower = q.toLowerCase().trim();
  const terms = new Set<string>();
  for (const g of CATALOGUE) for (const t of [...g.tags, g.title.toLowerCase()]) if (t.includes(lower) && t !== lower) terms.add(t);
  for (const t of TRENDING_TERMS) terms.add(t);
  return [...terms];
}
