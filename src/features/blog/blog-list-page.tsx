import { useState } from 'react';
import { Link } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { Figure, SampleScope } from '../../components/sample-scope.tsx';
import { FilterSelect } from '../../components/filter-select.tsx';
import { ActionMessages, EmptyState, ReadStatus } from '../../components/list-state.tsx';
import { Pager } from '../../components/pager.tsx';
import { SearchForm } from '../../components/search-form.tsx';
import { pageCount, usePagedList } from '../../lib/use-paged-list.ts';
import { useResource } from '../../lib/use-resource.ts';
import { currentTenantId, session } from '../../lib/auth/session.ts';
import { BLOG_PAGE_SIZE, listPosts, listTags, mayWriteBlog, type TagCount } from './blog-api.ts';
import { BlogImage } from './blog-image.tsx';
import { PostMeta, takeFlash } from './blog-widgets.tsx';

const NUMBER = new Intl.NumberFormat('fr-FR');
const STATUS_OPTIONS = [
  ['draft', 'Brouillons'],
  ['all', 'Tous'],
] as const;

/** Blog: the tenant's posts as cards, filtered by tag and text, newest first; writers also see drafts. */
export default function BlogListPage() {
  useSignals();
  const tenantKey = currentTenantId() ?? '';
  const writer = mayWriteBlog(session.value?.profile, currentTenantId());
  // ?tag=&q=&status=&page= in the URL, so a filtered view can be shared.
  const { query, update, list, pages } = usePagedList({
    filters: { tag: '', q: '', status: '' },
    // Drafts are for writers: a reader's ?status= is ignored rather than refused.
    load: ({ tag, q, status, page }) => listPosts({ tag, q, status: writer ? status : '', page }),
    pages: (data) => pageCount(data.count, BLOG_PAGE_SIZE),
    deps: [tenantKey, writer],
  });
  const { tag, q, page } = query;
  const status = writer ? query.status : '';
  const tags =
    useResource(async () => ({ data: await listTags().catch((): TagCount[] => []) }), [tenantKey]).data ?? [];
  const [notice] = useState(takeFlash);

  const data = list.data ?? null;
  const origin = list.origin;
  const filtered = !!(tag || q);
  // The active tag stays offered even when the tag list does not hold it (sample data, a new tag).
  const tagChoices =
    tag && !tags.some((t) => t.tag.toLowerCase() === tag.toLowerCase()) ? [{ tag, count: 0 }, ...tags] : tags;

  return (
    <section className="page blog-page">
      <div className="vm-head">
        <h1>Blog</h1>
        {writer && (
          <Link href="/blog/new" className="btn primary">
            Nouvel article
          </Link>
        )}
      </div>

      <div className="vm-toolbar" role="group" aria-label="Filtrer les articles">
        <SearchForm
          label="Recherche (titre, résumé)"
          className="blog-search"
          value={q}
          onSearch={(t) => update({ q: t })}
        />
        {writer && (
          <FilterSelect
            label="Statut"
            value={status}
            allLabel="Publiés"
            options={STATUS_OPTIONS}
            onChange={(value) => update({ status: value })}
          />
        )}
      </div>
      {tagChoices.length > 0 && (
        <div className="blog-tag-filter" role="group" aria-label="Filtrer par étiquette">
          <button
            type="button"
            className={tag ? 'btn small secondary' : 'btn small primary'}
            aria-pressed={!tag}
            onClick={() => update({ tag: '' })}
          >
            Toutes les étiquettes
          </button>
          {tagChoices.map((t) => {
            const active = t.tag.toLowerCase() === tag.toLowerCase();
            return (
              <button
                key={t.tag}
                type="button"
                className={active ? 'btn small primary' : 'btn small secondary'}
                aria-pressed={active}
                onClick={() => update({ tag: active ? '' : t.tag })}
              >
                {t.tag}
                {t.count > 0 && <span className="blog-tag-count"> ({NUMBER.format(t.count)})</span>}
              </button>
            );
          })}
        </div>
      )}

      <ActionMessages notice={notice} />
      <ReadStatus
        pending={!data && list.loading}
        loading="Chargement des articles…"
        error={list.error}
        failure="Impossible de charger les articles"
      />
      {data && !list.error && (
        <>
          <DataOriginNote origin={origin} />
          <SampleScope origin={origin}>
            <p className="muted">
              <Figure>{NUMBER.format(data.count)}</Figure> {data.count === 1 ? 'article' : 'articles'}
            </p>
            {data.results.length === 0 ? (
              <EmptyState>
                {filtered ? 'Aucun article ne correspond à ces critères.' : 'Aucun article publié pour le moment.'}
              </EmptyState>
            ) : (
              <div className="blog-cards">
                {data.results.map((post) => (
                  <article key={post.slug} className="card blog-card" data-slug={post.slug}>
                    {post.featured_image && <BlogImage className="blog-card-image" src={post.featured_image} alt="" />}
                    <h2>
                      {/* Sample posts are not on this server: no link leads into one. */}
                      {origin?.source === 'sample' ? (
                        post.title
                      ) : (
                        <Link href={`/blog/${encodeURIComponent(post.slug)}`}>{post.title}</Link>
                      )}
                    </h2>
                    <PostMeta post={post} />
                    {post.excerpt && <p className="blog-excerpt">{post.excerpt}</p>}
                  </article>
                ))}
              </div>
            )}
          </SampleScope>
          <Pager label="Pages du blog" page={page} pages={pages} onPage={(p) => update({ page: p })} />
        </>
      )}
    </section>
  );
}
