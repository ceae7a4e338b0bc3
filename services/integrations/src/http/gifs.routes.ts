import type { Express } from 'express';
import { ApiError, parse, userIdOf } from '@kith/platform';
import { providerNamed } from '../domain/gifs/gif.types.js';
import type { GifsService } from '../domain/gifs/gifs.service.js';
import { resolveMediaFormat } from '../domain/gifs/media-format.js';
import {
  providerSearchQuery,
  searchQuery,
  selectBody,
  suggestQuery,
  trendingGifsQuery,
  trendingQuery,
  trendingSearchQuery,
} from './gifs.schemas.js';

/** GIF search, trending and selection (anonymous, as the platform serves them, except selection). */
export function gifRoutes(app: Express, gifs: GifsService): void {
  app.get('/gifs/trending-search', async (req, res) => {
    const { provider, limit, locale } = parse(trendingSearchQuery, req.query);
    res.json(await gifs.trendingTerms(provider, limit, locale));
  });

  app.get('/gifs/suggest', async (req, res) => {
    const { provider, q, limit, locale } = parse(suggestQuery, req.query);
    res.json(await gifs.suggestions(provider, q, limit, locale));
  });

  app.get('/gifs/search', async (req, res) => {
    const { provider, q, limit, locale, media_format } = parse(searchQuery, req.query);
    res.json(await gifs.search(provider, q, limit, locale, resolveMediaFormat(provider, media_format)));
  });

  app.get('/gifs/trending', async (req, res) => {
    const { provider, locale, media_format } = parse(trendingQuery, req.query);
    res.json(await gifs.trendingCategories(provider, locale, resolveMediaFormat(provider, media_format)));
  });

  app.get('/gifs/trending-gifs', async (req, res) => {
    const { provider, limit, locale, media_format } = parse(trendingGifsQuery, req.query);
    res.json(await gifs.trendingGifs(provider, limit, locale, resolveMediaFormat(provider, media_format)));
  });

  app.post('/gifs/select', async (req, res) => {
    const userId = userIdOf(res);
    const { id, q, provider, locale } = parse(selectBody, req.body);
    await gifs.select(userId, provider, id, q, locale);
    res.status(204).end();
  });

  // The default provider's own search (the platform documents only Tenor's, under its real name).
  app.get('/integrations/:provider/search', async (req, res) => {
    if (providerNamed(req.params.provider) !== 'tenor') throw ApiError.notFound();
    userIdOf(res);
    const { q } = parse(providerSearchQuery, req.query);
    res.json(await gifs.providerSearch(q));
  });
}
