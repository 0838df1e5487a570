import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { DeletableRowActions } from '../../components/confirm-delete.tsx';
import { FilterSelect } from '../../components/filter-select.tsx';
import { errorAria, FormActions, FormError, FormField } from '../../components/form-field.tsx';
import { ActionMessages } from '../../components/list-state.tsx';
import { ProgressBar } from '../../components/progress-bar.tsx';
import { RowAction } from '../../components/row-action.tsx';
import { DownloadError } from '../../lib/download.ts';
import { UploadAbortedError } from '../../lib/upload.ts';
import { currentTenantId } from '../../lib/auth/session.ts';
import {
  deleteDocument,
  downloadDocument,
  listDocuments,
  updateDocument,
  uploadDocument,
  type DocumentType,
  type Id,
  type ProjectDocument,
  type Written,
} from './projects-api.ts';
import {
  checkDocumentFile,
  DOCUMENT_EXTENSIONS,
  DOCUMENT_TYPE_LABELS,
  DOCUMENT_TYPES,
  formatDateTime,
  formatSize,
  label,
  NUMBER,
  TITLE_MAX,
  TITLE_TOO_LONG,
} from './project-rules.ts';
import {
  changedFields,
  Empty,
  NO_CHANGE,
  serverFieldErrors,
  TabBody,
  useProjectActions,
  type TabProps,
} from './project-widgets.tsx';
import { useLoad } from './use-load.ts';
import { messageOf } from '../../lib/error-message.ts';

/** Documents: list, download for everyone; upload (with progress and cancel) and delete for editors. */
export function DocumentsTab({ project, canEdit, onChanged }: TabProps) {
  const [type, setType] = useState('');
  const { state, reload } = useLoad(
    () => listDocuments({ project: project.id, document_type: type }),
    JSON.stringify([project.id, type, currentTenantId() ?? '']),
  );
  const { busy, notice, setNotice, actionError, act } = useProjectActions();
  const [uploading, setUploading] = useState(false);
  const [editing, setEditing] = useState<ProjectDocument | null>(null);
  const [confirming, setConfirming] = useState<Id | null>(null);
  const [download, setDownload] = useState<{ id: Id; percent: number | null } | null>(null);
  const [downloadError, setDownloadError] = useState<string | null>(null);
  const downloadAbort = useRef<AbortController | null>(null);

  useEffect(() => () => downloadAbort.current?.abort(), []);

  const changed = () => {
    reload();
    onChanged();
  };

  function fetchFile(doc: ProjectDocument) {
    downloadAbort.current?.abort();
    const controller = new AbortController();
    downloadAbort.current = controller;
    setDownloadError(null);
    setNotice(null);
    setDownload({ id: doc.id, percent: doc.file_size ? 0 : null });
    downloadDocument(doc, {
      signal: controller.signal,
      onProgress: (p) =>
        setDownload({
          id: doc.id,
          percent: doc.file_size ? Math.min(100, Math.round((p.bytes / doc.file_size) * 100)) : null,
        }),
    }).then(
      () => {
        if (downloadAbort.current !== controller) return;
        downloadAbort.current = null;
        setDownload(null);
        setNotice(`Document « ${doc.title || doc.name} » téléchargé.`);
      },
      (err: unknown) => {
        if (downloadAbort.current !== controller) return;
        downloadAbort.current = null;
        setDownload(null);
        if (err instanceof DownloadError && err.aborted) setNotice('Téléchargement annulé.');
        else setDownloadError(err instanceof Error ? err.message : 'Impossible de télécharger le document.');
      },
    );
  }

  return (
    <div className="pj-tab">
      <div className="vm-head">
        <h3>Documents</h3>
        {canEdit && !uploading && !editing && (
          <button type="button" className="btn primary" onClick={() => setUploading(true)}>
            Ajouter un document
          </button>
        )}
      </div>
      {canEdit && uploading && (
        <UploadForm
          projectId={project.id}
          onClose={() => setUploading(false)}
          onDone={(saved) => {
            setUploading(false);
            setNotice(saved.queued ? saved.message : `Document « ${saved.data.title || saved.data.name} » ajouté.`);
            changed();
          }}
        />
      )}
      {canEdit && editing && (
        <DocumentEditForm
          key={editing.id}
          doc={editing}
          onClose={() => setEditing(null)}
          onSaved={(saved) => {
            setEditing(null);
            setNotice(saved.queued ? saved.message : `Document « ${saved.data.title || saved.data.name} » enregistré.`);
            changed();
          }}
        />
      )}
      <div className="vm-toolbar" role="group" aria-label="Filtrer les documents">
        <FilterSelect
          label="Type"
          value={type}
          allLabel="Tous"
          options={DOCUMENT_TYPES.map((t) => [t, DOCUMENT_TYPE_LABELS[t]] as const)}
          onChange={setType}
        />
      </div>
      <ActionMessages notice={notice} error={actionError ?? downloadError} />
      {download && (
        <div className="pj-download" role="group" aria-label="Téléchargement en cours">
          <ProgressBar
            label="Téléchargement du document"
            value={download.percent}
            showValue={download.percent !== null}
          />
          <button type="button" className="btn secondary small" onClick={() => downloadAbort.current?.abort()}>
            Annuler le téléchargement
          </button>
        </div>
      )}
      <TabBody state={state} loading="Chargement des documents…">
        {(result) =>
          result.data.results.length === 0 ? (
            <Empty>{type ? 'Aucun document de ce type.' : 'Aucun document dans ce projet.'}</Empty>
          ) : (
            <div className="table-wrap">
              <table className="table">
                <caption className="visually-hidden">Documents du projet</caption>
                <thead>
                  <tr>
                    <th scope="col">Document</th>
                    <th scope="col">Type</th>
                    <th scope="col">Taille</th>
                    <th scope="col">Format</th>
                    <th scope="col">Ajouté le</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {result.data.results.map((d) => {
                    const name = d.title || d.name;
                    const downloadButton = (
                      <RowAction
                        action="download"
                        text="Télécharger"
                        name={name}
                        disabled={!!download}
                        onClick={() => fetchFile(d)}
                      />
                    );
                    return (
                      <tr key={d.id} data-document-id={d.id}>
                        <th scope="row" className="pj-name">
                          {name}
                          {d.title && d.name && d.title !== d.name && <span className="muted pj-desc">{d.name}</span>}
                          {d.description && <span className="muted pj-desc">{d.description}</span>}
                        </th>
                        <td>{label(DOCUMENT_TYPE_LABELS, d.document_type)}</td>
                        <td>{formatSize(d.file_size)}</td>
                        <td className="mono small">{d.file_type || '—'}</td>
                        <td>{formatDateTime(d.created_at)}</td>
                        <td>
                          {canEdit ? (
                            <DeletableRowActions
                              name={name}
                              question="Supprimer ce document ?"
                              confirming={confirming === d.id}
                              busy={busy === `delete-${d.id}`}
                              onAsk={() => setConfirming(d.id)}
                              onConfirm={() =>
                                void act(
                                  `delete-${d.id}`,
                                  () => deleteDocument(d.id),
                                  `Document « ${name} » supprimé.`,
                                  () => {
                                    setConfirming(null);
                                    changed();
                                  },
                                )
                              }
                              onCancel={() => setConfirming(null)}
                            >
                              {downloadButton}
                              <RowAction
                                action="edit"
                                text="Modifier"
                                name={name}
                                onClick={() => {
                                  setUploading(false);
                                  setEditing(d);
                                }}
                              />
                            </DeletableRowActions>
                          ) : (
                            <div className="vm-actions">{downloadButton}</div>
                          )}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )
        }
      </TabBody>
    </div>
  );
}

/** Multipart upload with a progress bar and a cancel button; size and type checked before anything is sent. */
function UploadForm({
  projectId,
  onDone,
  onClose,
}: {
  projectId: Id;
  onDone: (result: Written<ProjectDocument>) => void;
  onClose: () => void;
}) {
  const id = useId();
  const [file, setFile] = useState<File | null>(null);
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [type, setType] = useState<DocumentType>('OTHER');
  const [fileError, setFileError] = useState<string | null>(null);
  const [titleError, setTitleError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [sending, setSending] = useState(false);
  const abortRef = useRef<AbortController | null>(null);

  useEffect(() => () => abortRef.current?.abort(), []);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const problem = checkDocumentFile(file);
    const titleTooLong = title.trim().length > TITLE_MAX ? TITLE_TOO_LONG : null;
    setFileError(problem);
    setTitleError(titleTooLong);
    setError(null);
    if (problem || titleTooLong || !file) return;
    setSending(true);
    setProgress(0);
    const controller = new AbortController();
    abortRef.current = controller;
    try {
      const saved = await uploadDocument(
        { project: projectId, file, title: title.trim(), description: description.trim(), document_type: type },
        { signal: controller.signal, onProgress: (p) => setProgress(p.percent) },
      );
      onDone(saved);
    } catch (err) {
      if (err instanceof UploadAbortedError) setError(err.message);
      else setError(messageOf(err));
    } finally {
      abortRef.current = null;
      setSending(false);
      setProgress(null);
    }
  }

  return (
    <form className="card pj-form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>Ajouter un document</h3>
      <p className="muted small">
        25 Mo au plus. Formats acceptés : PDF, images (PNG, JPEG, GIF, WebP), texte, CSV, Markdown, JSON, XML, ZIP,
        Word, Excel, PowerPoint, OpenDocument.
      </p>
      <div className="vm-form">
        <FormField id={`${id}-f`} label="Fichier *" error={fileError} wide>
          <input
            id={`${id}-f`}
            type="file"
            accept={DOCUMENT_EXTENSIONS.join(',')}
            disabled={sending}
            aria-invalid={fileError ? true : undefined}
            aria-describedby={`${id}-f-help${fileError ? ` ${id}-f-error` : ''}`}
            onChange={(e) => {
              setFile(e.target.files?.[0] ?? null);
              setFileError(null);
            }}
          />
          <span id={`${id}-f-help`} className="muted">
            {file ? `${file.name} — ${formatSize(file.size)}` : 'Aucun fichier choisi'}
          </span>
        </FormField>
        <FormField id={`${id}-t`} label="Titre" error={titleError}>
          <input
            id={`${id}-t`}
            value={title}
            disabled={sending}
            onChange={(e) => setTitle(e.target.value)}
            {...errorAria(`${id}-t-error`, titleError)}
          />
        </FormField>
        <FormField id={`${id}-ty`} label="Type">
          <select
            id={`${id}-ty`}
            value={type}
            disabled={sending}
            onChange={(e) => setType(e.target.value as DocumentType)}
          >
            {DOCUMENT_TYPES.map((t) => (
              <option key={t} value={t}>
                {DOCUMENT_TYPE_LABELS[t]}
              </option>
            ))}
          </select>
        </FormField>
        <FormField id={`${id}-d`} label="Description" wide>
          <textarea
            id={`${id}-d`}
            value={description}
            disabled={sending}
            onChange={(e) => setDescription(e.target.value)}
          />
        </FormField>
        {sending && (
          <div className="vm-wide">
            <ProgressBar label="Envoi du document" value={progress} showValue={false} />
            <p aria-live="polite" className="muted">
              {progress === null
                ? 'Envoi en cours…'
                : progress >= 100
                  ? 'Envoyé, vérification par le serveur…'
                  : `Envoi : ${NUMBER.format(progress)} %`}
            </p>
          </div>
        )}
        <FormError error={error} />
        <FormActions
          submitLabel={sending ? 'Envoi…' : 'Envoyer'}
          disabled={sending}
          closeLabel={sending ? 'Annuler l’envoi' : 'Fermer'}
          onClose={sending ? () => abortRef.current?.abort() : onClose}
        />
      </div>
    </form>
  );
}

/** The server's message when a document's name is empty. */
const DOCUMENT_NAME_REQUIRED = 'Le nom du document est requis.';

const DOCUMENT_FIELDS = ['name', 'title', 'description', 'document_type'] as const;
type DocumentErrors = Partial<Record<(typeof DOCUMENT_FIELDS)[number], string>>;

/** Edit a document's name, title, description and type (JSON PATCH of the changed fields; the file stays). */
function DocumentEditForm({
  doc,
  onSaved,
  onClose,
}: {
  doc: ProjectDocument;
  onSaved: (result: Written<ProjectDocument>) => void;
  onClose: () => void;
}) {
  const id = useId();
  const [name, setName] = useState(doc.name ?? '');
  const [title, setTitle] = useState(doc.title ?? '');
  const [description, setDescription] = useState(doc.description ?? '');
  const [type, setType] = useState<DocumentType>(doc.document_type);
  const [errors, setErrors] = useState<DocumentErrors>({});
  const [error, setError] = useState<string | null>(null);
  const [info, setInfo] = useState<string | null>(null);
  const [sending, setSending] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const found: DocumentErrors = {};
    if (name.trim() === '') found.name = DOCUMENT_NAME_REQUIRED;
    if (title.trim().length > TITLE_MAX) found.title = TITLE_TOO_LONG;
    setErrors(found);
    setError(null);
    setInfo(null);
    if (Object.keys(found).length > 0) return;
    const body = changedFields(doc, {
      name: name.trim(),
      title: title.trim(),
      description: description.trim(),
      document_type: type,
    });
    if (Object.keys(body).length === 0) {
      setInfo(NO_CHANGE);
      return;
    }
    setSending(true);
    try {
      onSaved(await updateDocument(doc.id, body));
    } catch (err) {
      setErrors(serverFieldErrors(err, DOCUMENT_FIELDS));
      setError(messageOf(err));
    } finally {
      setSending(false);
    }
  }

  const aria = (key: keyof DocumentErrors, control: string) => errorAria(`${id}-${control}-error`, errors[key]);

  return (
    <form className="card pj-form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>Modifier le document « {doc.title || doc.name} »</h3>
      <div className="vm-form">
        <FormField id={`${id}-n`} label="Nom du fichier *" error={errors.name}>
          <input id={`${id}-n`} value={name} onChange={(e) => setName(e.target.value)} {...aria('name', 'n')} />
        </FormField>
        <FormField id={`${id}-t`} label="Titre" error={errors.title}>
          <input id={`${id}-t`} value={title} onChange={(e) => setTitle(e.target.value)} {...aria('title', 't')} />
        </FormField>
        <FormField id={`${id}-ty`} label="Type" error={errors.document_type}>
          <select
            id={`${id}-ty`}
            value={type}
            onChange={(e) => setType(e.target.value as DocumentType)}
            {...aria('document_type', 'ty')}
          >
            {DOCUMENT_TYPES.map((t) => (
              <option key={t} value={t}>
                {DOCUMENT_TYPE_LABELS[t]}
              </option>
            ))}
          </select>
        </FormField>
        <FormField id={`${id}-d`} label="Description" error={errors.description} wide>
          <textarea
            id={`${id}-d`}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            {...aria('description', 'd')}
          />
        </FormField>
        {info && (
          <p className="muted vm-wide" role="status">
            {info}
          </p>
        )}
        <FormError error={error} />
        <FormActions
          submitLabel={sending ? 'Enregistrement…' : 'Enregistrer le document'}
          disabled={sending}
          closeLabel="Annuler"
          onClose={onClose}
        />
      </div>
    </form>
  );
}
