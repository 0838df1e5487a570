import { useEffect, useState } from 'react';
import { Link, useParams } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import type { DataOrigin } from '../../lib/api-client.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { ActionMessages } from '../../components/list-state.tsx';
import { messageOf } from '../../lib/error-message.ts';
import { currentTenantId, session } from '../../lib/auth/session.ts';
import { BLOG_MESSAGES, getPost, mayWriteBlog, type BlogPost } from './blog-api.ts';
import { BlogImage } from './blog-image.tsx';
import { PostMeta, takeFlash } from './blog-widgets.tsx';
import { MarkdownView } from './markdown-view.tsx';

type ReadState =
  | { kind: 'loading'; slug: string }
  | { kind: 'ok'; slug: string; post: BlogPost; origin: DataOrigin }
  | { kind: 'missing'; slug: string }
  | { kind: 'failed'; slug: string; error: string };

/** One post, its Markdown rendered and sanitised; writers get an edit link. */
export default function BlogPostPage() {
  useSignals();
  const slug = useParams<{ slug: string }>().slug ?? '';
  const tenantKey = currentTenantId() ?? '';
  const writer = mayWriteBlog(session.value?.profile, currentTenantId());
  const [state, setState] = useState<ReadState>({ kind: 'loading', slug });
  const [notice] = useState(takeFlash);

  useEffect(() => {
    let live = true;
    getPost(slug).then(
      ({ data, origin }) =>
        live && setState(data ? { kind: 'ok', slug, post: data, origin } : { kind: 'missing', slug }),
      (err: unknown) => live && setState({ kind: 'failed', slug, error: messageOf(err) }),
    );
    return () => {
      live = false;
    };
  }, [slug, tenantKey]);

  const current = state.slug === slug ? state : { kind: 'loading' as const, slug };

  return (
    <section className="page blog-page">
      <p className="blog-back">
        <Link href="/blog">← Tous les articles</Link>
      </p>
      <ActionMessages notice={notice} />
      {current.kind === 'loading' && <p role="status">Chargement de l’article…</p>}
      {current.kind === 'missing' && (
        <div className="card">
          <h1>Article introuvable</h1>
          <p>{BLOG_MESSAGES.notFound}</p>
        </div>
      )}
      {current.kind === 'failed' && (
        <p className="error" role="alert">
          Impossible de charger l’article : {current.error}
        </p>
      )}
      {current.kind === 'ok' && (
        <article className="blog-post">
          <DataOriginNote origin={current.origin} />
          <div className="vm-head">
            <h1>{current.post.title}</h1>
            {writer && current.origin.source !== 'sample' && (
              <Link href={`/blog/${encodeURIComponent(current.post.slug)}/edit`} className="btn secondary">
                Modifier
              </Link>
            )}
          </div>
          <PostMeta post={current.post} />
          {current.post.featured_image && (
            <BlogImage className="blog-featured" src={current.post.featured_image} alt="" />
          )}
          <MarkdownView source={current.post.content} />
        </article>
      )}
    </section>
  );
}
