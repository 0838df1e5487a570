import { useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { type DataOrigin } from '../../lib/api-client.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { Figure, SampleScope } from '../../components/sample-scope.tsx';
import { FilterSelect } from '../../components/filter-select.tsx';
import { ActionMessages, EmptyState } from '../../components/list-state.tsx';
import { Pager } from '../../components/pager.tsx';
import { SearchForm } from '../../components/search-form.tsx';
import { messageOf } from '../../lib/error-message.ts';
import { currentTenantId, session } from '../../lib/auth/session.ts';
import { BLOG_PAGE_SIZE, listPosts, listTags, mayWriteBlog, type BlogPage, type TagCount } from './blog-api.ts';
import { BlogImage } from './blog-image.tsx';
import { PostMeta, takeFlash } from './blog-widgets.tsx';

const NUMBER = new Intl.NumberFormat('fr-FR');
const STATUS_OPTIONS = [
  ['draft', 'Brouillons'],
  ['all', 'Tous'],
] as const;

function positiveInt(value: string | null, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** ?tag=&q=&status=&page= in the URL, so a filtered view can be shared. */
function useBlogQuery() {
  const [params, setParams] = useSearchParams();
  const query = {
    tag: params.get('tag') ?? '',
    q: params.get('q') ?? '',
    status: params.get('status') ?? '',
    page: positiveInt(params.get('page'), 1),
  };
  const update = (changes: Partial<Record<'tag' | 'q' | 'status' | 'page', string | number>>) => {
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        if (!('page' in changes)) next.delete('page');
        for (const [key, value] of Object.entries(changes)) {
          const text = String(value ?? '').trim();
          if (text === '' || (key === 'page' && text === '1')) next.delete(key);
          else next.set(key, text);
        }
        return next;
      },
      { replace: true },
    );
  };
  return [query, update] as const;
}

type ReadState =
  { kind: 'loading' } | { kind: 'ok'; data: BlogPage; origin: DataOrigin } | { kind: 'failed'; error: string };

/** Blog: the tenant's posts as cards, filtered by tag and text, newest first; writers also see drafts. */
export default function BlogListPage() {
  useSignals();
  const tenantKey = currentTenantId() ?? '';
  const writer = mayWriteBlog(session.value?.profile, currentTenantId());
  const [query, update] = useBlogQuery();
  const { tag, q, page } = query;
  // Drafts are for writers: a reader's ?status= is ignored rather than refused.
  const status = writer ? query.status : '';
  const [state, setState] = useState<ReadState>({ kind: 'loading' });
  const [tags, setTags] = useState<TagCount[]>([]);
  const [notice] = useState(takeFlash);
  const seq = useRef(0);

  useEffect(() => {
    const mine = ++seq.current;
    listPosts({ tag, q, status, page }).then(
      (answer) => mine === seq.current && setState({ kind: 'ok', ...answer }),
      (err: unknown) => mine === seq.current && setState({ kind: 'failed', error: messageOf(err) }),
    );
  }, [tag, q, status, page, tenantKey]);

  useEffect(() => {
    let live = true;
    listTags().then(
      (list) => live && setTags(list),
      () => live && setTags([]),
    );
    return () => {
      live = false;
    };
  }, [tenantKey]);

  const data = state.kind === 'ok' ? state.data : null;
  const pages = data ? Math.max(1, Math.ceil(data.count / BLOG_PAGE_SIZE)) : 1;
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
      {state.kind === 'loading' && <p role="status">Chargement des articles…</p>}
      {state.kind === 'failed' && (
        <p className="error" role="alert">
          Impossible de charger les articles : {state.error}
        </p>
      )}
      {data && state.kind === 'ok' && (
        <>
          <DataOriginNote origin={state.origin} />
          <SampleScope origin={state.origin}>
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
                      {state.origin.source === 'sample' ? (
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
