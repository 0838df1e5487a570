import { Link } from 'wouter';
import type { BlogPost } from './blog-api.ts';
import './blog.css';
import { dateFormat } from '../../lib/format.ts';

const DAY = dateFormat({ dateStyle: 'long' });

/** '20 mai 2025' */
export function formatPostDate(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : DAY.format(d);
}

/** A message shown on the next screen after a navigation (saved, deleted): set before navigating, read once. */
let flash: string | null = null;
export function setFlash(message: string): void {
  flash = message;
}
export function takeFlash(): string | null {
  const message = flash;
  flash = null;
  return message;
}

export function tagHref(tag: string): string {
  return `/blog?tag=${encodeURIComponent(tag)}`;
}

/** Author, date (or « Brouillon ») and tags of a post. */
export function PostMeta({ post }: { post: BlogPost }) {
  return (
    <div className="blog-meta">
      {post.status === 'draft' && <span className="vm-badge medium">Brouillon</span>}
      {post.author && <span>Par {post.author}</span>}
      {post.published_date && <time dateTime={post.published_date}>{formatPostDate(post.published_date)}</time>}
      {post.tags.length > 0 && (
        <ul className="blog-tags" aria-label="Étiquettes">
          {post.tags.map((tag) => (
            <li key={tag}>
              <Link href={tagHref(tag)}>{tag}</Link>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
