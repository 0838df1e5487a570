import { useResource } from '../../lib/use-resource.ts';
import { apiRequest } from '../../lib/api-client.ts';

/**
 * Blog images under /api/ need the Bearer token, which <img> cannot send: they are fetched through the API client
 * and shown from a blob: URL (the CSP allows 'self' data: blob:). Other same-origin images load directly.
 */

export type ImageSource = { kind: 'direct'; src: string } | { kind: 'api'; path: string } | { kind: 'blocked' };

const BLOG_IMAGE_PATH = /^\/api\/blog\/images\/[^/?#]+\/?$/;

/**
 * How an image may be shown: data:image/* and same-origin files directly; blog images (/api/blog/images/{id}/)
 * through an authorised fetch; nothing else (other /api/ answers are no images, and a post must not make its
 * readers call them; other origins are blocked by the CSP anyway: no tracking pixels).
 */
export function classifyImage(src: string): ImageSource {
  const trimmed = src.trim();
  if (/^data:/i.test(trimmed))
    return /^data:image\/[a-z0-9.+-]+[;,]/i.test(trimmed) ? { kind: 'direct', src: trimmed } : { kind: 'blocked' };
  const base = typeof location === 'undefined' ? 'http://localhost' : location.origin;
  let url: URL;
  try {
    url = new URL(trimmed, base);
  } catch {
    return { kind: 'blocked' };
  }
  if (url.origin !== base) return { kind: 'blocked' };
  const path = url.pathname.replace(/\/{2,}/g, '/');
  if (!/^\/api(\/|$)/.test(path)) return { kind: 'direct', src: trimmed };
  return BLOG_IMAGE_PATH.test(path) ? { kind: 'api', path } : { kind: 'blocked' };
}

// One fetch per image for the page's life (the editor's preview renders again at each keystroke); a failure is
// forgotten so the next render tries again. Logout reloads the page, which drops them all.
const loads = new Map<string, Promise<string>>();

/** Fetches a blog image with the session's token; resolves with a blob: URL. */
export function loadApiImage(path: string): Promise<string> {
  let load = loads.get(path);
  if (!load) {
    load = apiRequest<Blob>(path, { responseType: 'blob', headers: { Accept: 'image/*' } }).then((blob) => {
      // Offline, the service worker may answer with sample JSON instead of the bytes: that is no image.
      if (typeof blob?.type !== 'string' || !blob.type.startsWith('image/')) throw new Error('not an image');
      return URL.createObjectURL(blob);
    });
    load.catch(() => loads.delete(path));
    loads.set(path, load);
  }
  return load;
}

/** The URL to put in <img src>: direct for ordinary images, a blob: URL once a blog image arrived. */
export function useImageSource(src: string | null | undefined): { url: string | null; failed: boolean } {
  const source = src ? classifyImage(src) : null;
  const apiPath = source?.kind === 'api' ? source.path : null;
  const image = useResource(async () => ({ data: apiPath ? await loadApiImage(apiPath) : null }), [apiPath]);

  if (!source) return { url: null, failed: false };
  if (source.kind === 'direct') return { url: source.src, failed: false };
  if (source.kind === 'blocked') return { url: null, failed: true };
  return { url: image.data ?? null, failed: image.state.status === 'error' };
}

/** A featured image (or any image a post names), whichever way it has to be loaded. */
export function BlogImage({
  src,
  alt,
  className,
}: {
  src: string | null | undefined;
  alt: string;
  className?: string;
}) {
  const { url, failed } = useImageSource(src);
  if (!src) return null;
  if (failed)
    return (
      <span className={`blog-image-missing ${className ?? ''}`} role="img" aria-label={alt || 'Image indisponible'}>
        Image indisponible
      </span>
    );
  if (!url) return <span className={`blog-image-loading ${className ?? ''}`} aria-hidden="true" />;
  return <img className={className} src={url} alt={alt} loading="lazy" />;
}
