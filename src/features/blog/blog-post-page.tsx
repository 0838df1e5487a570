import { useState } from 'react';
import { Link, useParams } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { ActionMessages } from '../../components/list-state.tsx';
import { useResource } from '../../lib/use-resource.ts';
import { currentTenantId, session } from '../../lib/auth/session.ts';
import { BLOG_MESSAGES, getPost, mayWriteBlog } from './blog-api.ts';
import { BlogImage } from './blog-image.tsx';
import { PostMeta, takeFlash } from './blog-widgets.tsx';
import { MarkdownView } from './markdown-view.tsx';

/** One post, its Markdown rendered and sanitised; writers get an edit link. */
export default function BlogPostPage() {
  useSignals();
  const slug = useParams<{ slug: string }>().slug ?? '';
  const tenantKey = currentTenantId() ?? '';
  const writer = mayWriteBlog(session.value?.profile, currentTenantId());
  const read = useResource(() => getPost(slug), [slug, tenantKey]);
  const [notice] = useState(takeFlash);
  const post = read.data;

  return (
    <section className="page blog-page">
      <p className="blog-back">
        <Link href="/blog">← Tous les articles</Link>
      </p>
      <ActionMessages notice={notice} />
      {read.loading && <p role="status">Chargement de l’article…</p>}
      {read.state.status === 'ready' && !post && (
        <div className="card">
          <h1>Article introuvable</h1>
          <p>{BLOG_MESSAGES.notFound}</p>
        </div>
      )}
      {read.error && (
        <p className="error" role="alert">
          Impossible de charger l’article : {read.error}
        </p>
      )}
      {post && (
        <article className="blog-post">
          <DataOriginNote origin={read.origin} />
          <div className="vm-head">
            <h1>{post.title}</h1>
            {writer && read.origin?.source !== 'sample' && (
              <Link href={`/blog/${encodeURIComponent(post.slug)}/edit`} className="btn secondary">
                Modifier
              </Link>
            )}
          </div>
          <PostMeta post={post} />
          {post.featured_image && <BlogImage className="blog-featured" src={post.featured_image} alt="" />}
          <MarkdownView source={post.content} />
        </article>
      )}
    </section>
  );
}
