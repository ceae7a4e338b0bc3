import { pipeline } from 'node:stream/promises';
import type { Express, Request, Response } from 'express';
import { ApiError } from '@kith/platform';
import type { AttachmentsService } from '../domain/attachments.service.js';

const ID = /^\d{1,20}$/;

/** The files of webhook messages, as the edge serves them under `/attachments/...` (no token: the URL is the secret's stand-in, as on the platform). */
export function attachmentRoutes(app: Express, attachments: AttachmentsService): void {
  app.get('/attachments/:channelId/:attachmentId/:filename', async (req: Request, res: Response) => {
    const [channelId, attachmentId, filename] = [req.params.channelId, req.params.attachmentId, req.params.filename].map(String) as [
      string,
      string,
      string,
    ];
    if (!ID.test(channelId) || !ID.test(attachmentId)) throw ApiError.notFound();
    const object = await attachments.get(channelId, attachmentId, filename);
    if (!object) throw ApiError.notFound();
    res.setHeader('content-type', object.contentType);
    res.setHeader('content-length', String(object.size));
    res.setHeader('cache-control', 'public, max-age=31536000, immutable');
    // Images show inline; anything else (HTML, SVG, scripts) is a download, never a page of this origin.
    const inline = /^image\/(png|jpeg|gif|webp|avif)$/.test(object.contentType);
    res.setHeader('content-disposition', inline ? 'inline' : 'attachment');
    res.setHeader('x-content-type-options', 'nosniff');
    await pipeline(object.body, res);
  });
}
