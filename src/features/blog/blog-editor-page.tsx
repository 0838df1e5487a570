import { charCount } from '../../../contract/text.ts';
import { useState, type ChangeEvent } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { ApiError } from '../../lib/api-client.ts';
import { ConfirmDelete } from '../../components/confirm-delete.tsx';
import { errorAria, FormError, FormField, TextField } from '../../components/form-field.tsx';
import { ActionMessages } from '../../components/list-state.tsx';
import { messageOf } from '../../lib/error-message.ts';
import { fieldErrorsOf, useForm } from '../../lib/use-form.ts';
import { useResource } from '../../lib/use-resource.ts';
import { currentTenantId, session } from '../../lib/auth/session.ts';
import {
  BLOG_MESSAGES,
  deletePost,
  getPost,
  imageProblem,
  mayWriteBlog,
  savePost,
  SLUG_PATTERN,
  slugify,
  uploadImage,
  type BlogInput,
  type BlogPost,
  type BlogStatus,
} from './blog-api.ts';
import { BlogImage } from './blog-image.tsx';
import { setFlash, takeFlash } from './blog-widgets.tsx';
import { MarkdownView } from './markdown-view.tsx';

type Field = 'title' | 'slug' | 'excerpt' | 'content' | 'tags' | 'featured_image' | 'status';
type FieldErrors = Partial<Record<Field, string>>;
const FIELDS: readonly Field[] = ['title', 'slug', 'excerpt', 'content', 'tags', 'featured_image', 'status'];

interface Draft {
  title: string;
  slug: string;
  excerpt: string;
  tags: string;
  featured_image: string | null;
  content: string;
}

/** 'CVE, Citrix' → ['CVE', 'Citrix'] (empty and repeated ones dropped). */
export function parseTags(text: string): string[] {
  const tags = text
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  return tags.filter((t, i) => tags.findIndex((u) => u.toLowerCase() === t.toLowerCase()) === i);
}

/** The server's limits, checked first so the form answers at once. */
export function validateDraft(draft: Draft): FieldErrors {
  const errors: FieldErrors = {};
  const title = draft.title.trim();
  if (title === '' || charCount(title) > 200) errors.title = BLOG_MESSAGES.title;
  if (draft.slug.trim() && !SLUG_PATTERN.test(draft.slug.trim())) errors.slug = BLOG_MESSAGES.slug;
  if (charCount(draft.excerpt) > 500) errors.excerpt = BLOG_MESSAGES.excerpt;
  if (charCount(draft.content) > 200_000) errors.content = BLOG_MESSAGES.content;
  const tags = parseTags(draft.tags);
  if (tags.length > 10 || tags.some((t) => charCount(t) > 40)) errors.tags = BLOG_MESSAGES.tags;
  return errors;
}

/** /blog/new and /blog/:slug/edit, for writers (tenant admins and managers, staff, superusers). */
export default function BlogEditorPage() {
  useSignals();
  const slug = useParams<{ slug?: string }>().slug ?? '';
  const writer = mayWriteBlog(session.value?.profile, currentTenantId());
  // Sample data is no post to edit: saving it would create one the server never had.
  const read = useResource(async (): Promise<{ data: BlogPost | null | 'missing' }> => {
    if (!slug || !writer) return { data: null };
    const { data, origin } = await getPost(slug);
    return { data: data && origin.source !== 'sample' ? data : 'missing' };
  }, [slug, writer]);

  if (!writer)
    return (
      <section className="page blog-page">
        <h1>Blog</h1>
        <p className="error" role="alert">
          {BLOG_MESSAGES.forbidden}
        </p>
        <p className="muted">La rédaction est réservée aux administrateurs et responsables de l’organisation.</p>
      </section>
    );

  // A new post has nothing to read first.
  const post = slug ? read.data : null;
  return (
    <section className="page page-wide blog-page">
      <p className="blog-back">
        <Link href="/blog">← Tous les articles</Link>
      </p>
      {!!slug && read.loading && <p role="status">Chargement de l’article…</p>}
      {post === 'missing' && (
        <p className="error" role="alert">
          {BLOG_MESSAGES.notFound}
        </p>
      )}
      {read.error && (
        <p className="error" role="alert">
          Impossible de charger l’article : {read.error}
        </p>
      )}
      {post !== undefined && post !== 'missing' && <Editor key={post?.slug ?? ''} initial={post} />}
    </section>
  );
}

function Editor({ initial }: { initial: BlogPost | null }) {
  const [, navigate] = useLocation();
  const [post, setPost] = useState(initial);
  const form = useForm<Draft>({
    title: initial?.title ?? '',
    slug: initial?.slug ?? '',
    excerpt: initial?.excerpt ?? '',
    tags: initial?.tags.join(', ') ?? '',
    featured_image: initial?.featured_image ?? null,
    content: initial?.content ?? '',
  });
  const { values: draft, id } = form;
  const [notice, setNotice] = useState<string | null>(takeFlash);
  const [uploading, setUploading] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const busy = form.submitting;
  const status: BlogStatus = post?.status ?? 'draft';

  /** The server's field messages and a taken slug (409) next to their fields. */
  const fieldErrors = (err: unknown) => ({
    ...fieldErrorsOf(err, { keys: FIELDS }),
    ...(err instanceof ApiError && err.status === 409 ? { slug: err.message } : {}),
  });

  const save = (nextStatus: BlogStatus | undefined, message: string) => {
    setNotice(null);
    return form.submit(
      async () => {
        const body: Partial<BlogInput> = {
          title: draft.title.trim(),
          excerpt: draft.excerpt.trim(),
          content: draft.content,
          tags: parseTags(draft.tags),
          featured_image: draft.featured_image,
          ...(draft.slug.trim() ? { slug: draft.slug.trim() } : {}),
          ...(nextStatus ? { status: nextStatus } : {}),
        };
        const saved = await savePost(post?.slug ?? null, body);
        if (!post || saved.slug !== post.slug) {
          // A new post (or a new slug) has a new address: the editor reopens there.
          setFlash(message);
          navigate(`/blog/${encodeURIComponent(saved.slug)}/edit`, { replace: true });
          return;
        }
        setPost(saved);
        setNotice(message);
      },
      { validate: validateDraft, fieldErrors },
    );
  };

  const remove = () =>
    form.submit(
      async () => {
        if (!post) return;
        try {
          await deletePost(post.slug);
        } catch (err) {
          setConfirming(false);
          throw err;
        }
        setFlash(`Article « ${post.title} » supprimé.`);
        navigate('/blog');
      },
      { fieldErrors },
    );

  async function upload(e: ChangeEvent<HTMLInputElement>) {
    const input = e.target;
    const file = input.files?.[0];
    if (!file) return;
    const problem = imageProblem(file);
    form.setErrors((x) => ({ ...x, featured_image: problem ?? undefined }));
    if (problem) {
      input.value = '';
      return;
    }
    setUploading(true);
    try {
      const image = await uploadImage(file);
      form.set('featured_image', image.url);
      setNotice('Image envoyée.');
    } catch (err) {
      form.setErrors((x) => ({ ...x, featured_image: messageOf(err) }));
    } finally {
      setUploading(false);
      input.value = '';
    }
  }

  return (
    <form className="blog-editor" noValidate onSubmit={(e) => e.preventDefault()} aria-labelledby={`${id}-heading`}>
      <div className="vm-head">
        <h1 id={`${id}-heading`}>{post ? `Modifier « ${post.title} »` : 'Nouvel article'}</h1>
        {post && (
          <span className={status === 'published' ? 'vm-badge ok' : 'vm-badge medium'}>
            {status === 'published' ? 'Publié' : 'Brouillon'}
          </span>
        )}
      </div>
      <ActionMessages notice={notice} />
      <div className="vm-form">
        <TextField form={form} name="title" label="Titre *" maxLength={200} required wide />
        <TextField
          form={form}
          name="slug"
          label="Lien (slug)"
          placeholder={slugify(draft.title) || 'genere-depuis-le-titre'}
        />
        <TextField form={form} name="tags" label="Étiquettes (séparées par des virgules)" />
        <TextField form={form} name="excerpt" label="Résumé" maxLength={500} multiline wide />
        <FormField
          {...form.field('featured_image')}
          label="Image mise en avant (PNG, JPEG, GIF ou WebP, 5 Mio au plus)"
          wide
        >
          <input
            id={`${id}-featured_image`}
            type="file"
            accept="image/png,image/jpeg,image/gif,image/webp"
            disabled={uploading}
            onChange={(e) => void upload(e)}
            {...errorAria(`${id}-featured_image-error`, form.errors.featured_image)}
          />
        </FormField>
        {uploading && (
          <p className="vm-wide" role="status">
            Envoi de l’image…
          </p>
        )}
        {draft.featured_image && (
          <div className="blog-editor-image vm-wide">
            <BlogImage src={draft.featured_image} alt="Image mise en avant" className="blog-featured" />
            <button type="button" className="btn secondary small" onClick={() => form.set('featured_image', null)}>
              Retirer l’image
            </button>
          </div>
        )}
        <div className="blog-editor-panes vm-wide">
          <TextField form={form} name="content" label="Contenu (Markdown)" className="blog-editor-source" multiline />
          <section className="blog-editor-preview" aria-label="Aperçu">
            <h2>Aperçu</h2>
            <MarkdownView source={draft.content} />
          </section>
        </div>
        <FormError error={form.error} />
        <div className="vm-form-actions">
          {status === 'draft' ? (
            <>
              <button
                type="button"
                className="btn secondary"
                disabled={busy}
                onClick={() => void save('draft', 'Brouillon enregistré.')}
              >
                Enregistrer le brouillon
              </button>
              <button
                type="button"
                className="btn primary"
                disabled={busy}
                onClick={() => void save('published', 'Article publié.')}
              >
                Publier
              </button>
            </>
          ) : (
            <>
              <button
                type="button"
                className="btn primary"
                disabled={busy}
                onClick={() => void save(undefined, 'Modifications enregistrées.')}
              >
                Enregistrer
              </button>
              <button
                type="button"
                className="btn secondary"
                disabled={busy}
                onClick={() => void save('draft', 'Article dépublié : il redevient un brouillon.')}
              >
                Dépublier
              </button>
            </>
          )}
          {post && (
            <Link href={`/blog/${encodeURIComponent(post.slug)}`} className="btn secondary">
              Voir l’article
            </Link>
          )}
          {post &&
            (confirming ? (
              <ConfirmDelete
                name={post.title}
                question="Supprimer définitivement cet article ?"
                busy={busy}
                onConfirm={() => void remove()}
                onCancel={() => setConfirming(false)}
              />
            ) : (
              <button type="button" className="btn danger" disabled={busy} onClick={() => setConfirming(true)}>
                Supprimer
              </button>
            ))}
        </div>
      </div>
    </form>
  );
}
