import { charCount } from '../../../contract/text.ts';
import { useState } from 'react';
import { DataTable } from '../../components/data-table.tsx';
import { FilterSelect } from '../../components/filter-select.tsx';
import { FormCard, SelectField, TextField } from '../../components/form-field.tsx';
import { FileField, UploadFormCard } from '../../components/upload-field.tsx';
import { ProgressBar } from '../../components/progress-bar.tsx';
import { RowAction } from '../../components/row-action.tsx';
import { optionsOf } from '../../components/select.tsx';
import { useDownload } from '../../lib/use-download.ts';
import { useUpload } from '../../lib/use-upload.ts';
import { useForm } from '../../lib/use-form.ts';
import { deleteDocument, downloadDocument, listDocuments, updateDocument, uploadDocument } from './projects-api.ts';
import type { Written } from './project-http.ts';
import type { DocumentType, Id, ProjectDocument } from './project-types.ts';
import {
  checkDocumentFile,
  DOCUMENT_EXTENSIONS,
  DOCUMENT_TYPE_LABELS,
  DOCUMENT_TYPES,
  formatDateTime,
  formatSize,
  label,
  TITLE_MAX,
  TITLE_TOO_LONG,
} from './project-rules.ts';
import { RemovableRow, saveChanges, TabBody, TabHead, TabMessages, useTabList } from './project-tab.tsx';
import type { Removal, TabProps } from './project-tab.tsx';

const TYPE_OPTIONS = optionsOf(DOCUMENT_TYPE_LABELS, DOCUMENT_TYPES);

const REMOVAL: Removal<ProjectDocument> = {
  question: 'Supprimer ce document ?',
  remove: (d) => deleteDocument(d.id),
  removed: (d) => `Document « ${d.title || d.name} » supprimé.`,
};

/** Documents: list, download for everyone; upload (with progress and cancel) and delete for editors. */
export function DocumentsTab(props: TabProps) {
  const { project, canEdit } = props;
  const [type, setType] = useState('');
  const tab = useTabList(props, () => listDocuments({ project: project.id, document_type: type }), [type]);
  const [uploading, setUploading] = useState(false);
  const [editing, setEditing] = useState<ProjectDocument | null>(null);
  const download = useDownload();

  async function fetchFile(doc: ProjectDocument) {
    tab.setNotice(null);
    const outcome = await download.start(doc.id, doc.file_size, (opts) => downloadDocument(doc, opts));
    if (outcome === 'done') tab.setNotice(`Document « ${doc.title || doc.name} » téléchargé.`);
    if (outcome === 'cancelled') tab.setNotice('Téléchargement annulé.');
  }

  const saved = (result: Written<ProjectDocument>, done: string) => {
    tab.setNotice(result.queued ? result.message : `Document « ${result.data.title || result.data.name} » ${done}.`);
    tab.changed();
  };

  return (
    <div className="pj-tab">
      <TabHead
        title="Documents"
        action={canEdit && !uploading && !editing && 'Ajouter un document'}
        onAction={() => setUploading(true)}
      />
      {canEdit && uploading && (
        <UploadForm
          projectId={project.id}
          onClose={() => setUploading(false)}
          onDone={(result) => {
            setUploading(false);
            saved(result, 'ajouté');
          }}
        />
      )}
      {canEdit && editing && (
        <DocumentEditForm
          key={editing.id}
          doc={editing}
          onClose={() => setEditing(null)}
          onSaved={(result) => {
            setEditing(null);
            saved(result, 'enregistré');
          }}
        />
      )}
      <div className="vm-toolbar" role="group" aria-label="Filtrer les documents">
        <FilterSelect label="Type" value={type} allLabel="Tous" options={TYPE_OPTIONS} onChange={setType} />
      </div>
      <TabMessages tab={tab} error={download.error} />
      {download.running && (
        <div className="pj-download" role="group" aria-label="Téléchargement en cours">
          <ProgressBar
            label="Téléchargement du document"
            value={download.running.percent}
            showValue={download.running.percent !== null}
          />
          <button type="button" className="btn secondary small" onClick={download.cancel}>
            Annuler le téléchargement
          </button>
        </div>
      )}
      <TabBody
        tab={tab}
        loading="Chargement des documents…"
        empty={type ? 'Aucun document de ce type.' : 'Aucun document dans ce projet.'}
      >
        {(page) => (
          <DataTable
            caption="Documents du projet"
            headers={['Document', 'Type', 'Taille', 'Format', 'Ajouté le']}
            actions
          >
            {page.results.map((d) => {
              const name = d.title || d.name;
              const downloadButton = (
                <RowAction
                  action="download"
                  text="Télécharger"
                  name={name}
                  disabled={!!download.running}
                  onClick={() => void fetchFile(d)}
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
                      <RemovableRow tab={tab} row={d} name={name} removal={REMOVAL}>
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
                      </RemovableRow>
                    ) : (
                      <div className="vm-actions">{downloadButton}</div>
                    )}
                  </td>
                </tr>
              );
            })}
          </DataTable>
        )}
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
  const form = useForm({
    file: null as File | null,
    title: '',
    document_type: 'OTHER' as DocumentType,
    description: '',
  });
  const { values, submitting } = form;
  const upload = useUpload();

  const validate = () => {
    const file = checkDocumentFile(values.file);
    const title = charCount(values.title.trim()) > TITLE_MAX ? TITLE_TOO_LONG : null;
    return { ...(file ? { file } : {}), ...(title ? { title } : {}) };
  };
  const send = async () => {
    const input = {
      project: projectId,
      file: values.file!,
      title: values.title.trim(),
      description: values.description.trim(),
      document_type: values.document_type,
    };
    onDone(await upload.run((opts) => uploadDocument(input, opts)));
  };

  return (
    <UploadFormCard
      form={form}
      upload={upload}
      status={{ label: 'Envoi du document', done: 'Envoyé, vérification par le serveur…' }}
      title="Ajouter un document"
      intro={
        <p className="muted small">
          25 Mo au plus. Formats acceptés : PDF, images (PNG, JPEG, GIF, WebP), texte, CSV, Markdown, JSON, XML, ZIP,
          Word, Excel, PowerPoint, OpenDocument.
        </p>
      }
      onSubmit={form.onSubmit(send, { validate, fieldErrors: () => ({}) })}
      submitLabel="Envoyer"
      onClose={onClose}
    >
      <FileField
        field={form.field('file')}
        label="Fichier *"
        accept={DOCUMENT_EXTENSIONS.join(',')}
        disabled={submitting}
        file={values.file}
        onFile={(file) => {
          form.set('file', file);
          form.setErrors(({ file: _, ...others }) => others);
        }}
      />
      <TextField form={form} name="title" label="Titre" disabled={submitting} />
      <SelectField form={form} name="document_type" label="Type" options={TYPE_OPTIONS} disabled={submitting} />
      <TextField form={form} name="description" label="Description" multiline wide disabled={submitting} />
    </UploadFormCard>
  );
}

/** The server's message when a document's name is empty. */
const DOCUMENT_NAME_REQUIRED = 'Le nom du document est requis.';

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
  const form = useForm({
    name: doc.name ?? '',
    title: doc.title ?? '',
    document_type: doc.document_type,
    description: doc.description ?? '',
  });
  const { values } = form;
  const validate = () => ({
    ...(values.name.trim() === '' ? { name: DOCUMENT_NAME_REQUIRED } : {}),
    ...(charCount(values.title.trim()) > TITLE_MAX ? { title: TITLE_TOO_LONG } : {}),
  });
  const send = () =>
    saveChanges(
      form,
      doc,
      {
        name: values.name.trim(),
        title: values.title.trim(),
        description: values.description.trim(),
        document_type: values.document_type,
      },
      (changes) => updateDocument(doc.id, changes),
      onSaved,
    );

  return (
    <FormCard
      form={form}
      title={`Modifier le document « ${doc.title || doc.name} »`}
      onSubmit={form.onSubmit(send, { validate })}
      submitLabel="Enregistrer le document"
      onClose={onClose}
    >
      <TextField form={form} name="name" label="Nom du fichier *" />
      <TextField form={form} name="title" label="Titre" />
      <SelectField form={form} name="document_type" label="Type" options={TYPE_OPTIONS} />
      <TextField form={form} name="description" label="Description" multiline wide />
    </FormCard>
  );
}
