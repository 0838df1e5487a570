import { useState } from 'react';
import { RUNTIME_CONFIG_KEYS } from '../../../contract/config.ts';
import { LOG_LEVEL_LABELS } from '../../../contract/levels.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { FormError, TextField } from '../../components/form-field.tsx';
import { ReadStatus } from '../../components/list-state.tsx';
import { useForm } from '../../lib/use-form.ts';
import { useResource } from '../../lib/use-resource.ts';
import { fetchConfig, updateConfig, type AdminConfig } from './admin-api.ts';
import { formatDateTime } from './format.ts';

/** The server's standard output levels (pino's names). */
const STDOUT_LEVEL_LABELS: Record<string, string> = {
  trace: 'Trace détaillée',
  debug: LOG_LEVEL_LABELS.debug,
  info: LOG_LEVEL_LABELS.info,
  warn: LOG_LEVEL_LABELS.warning,
  error: LOG_LEVEL_LABELS.error,
  fatal: 'Fatale',
  silent: 'Aucune sortie',
};

const NOTIFY_LABELS: Record<string, string> = { off: 'Désactivées', critical: 'Critiques seulement', all: 'Toutes' };
const SECRET_SOURCES: Record<string, string> = {
  environment: 'variable d’environnement',
  database: 'base de données (partagée par tous les processus)',
};
const SECRET_LABELS: Record<string, string> = {
  jwt_secret: 'Clé de signature des jetons',
  encryption_key: 'Clé de chiffrement',
};

const yesNo = (v: unknown) => (v === true ? 'Oui' : v === false ? 'Non' : '—');
const text = (v: unknown) =>
  v === null || v === undefined || v === ''
    ? '—'
    : typeof v === 'string' || typeof v === 'number'
      ? String(v)
      : typeof v === 'boolean'
        ? yesNo(v)
        : JSON.stringify(v);
const obj = (v: unknown) => (v && typeof v === 'object' ? (v as Record<string, unknown>) : {});

function storageText(v: unknown): string {
  const s = obj(v);
  if (s.kind === 'disk') return `Disque — ${text(s.path)}`;
  if (s.kind === 's3') return `S3 — compartiment ${text(s.bucket)}${s.region ? ` (${text(s.region)})` : ''}`;
  return text(v);
}

const KNOWN = new Set<string>([...RUNTIME_CONFIG_KEYS, 'editable', 'updated_at', 'updated_by']);

/** The runtime configuration, read-only, with French labels; keys this screen does not know are listed as sent. */
function RuntimeView({ config }: { config: AdminConfig }) {
  const mail = obj(config.mail);
  const db = obj(config.database);
  const rows: [string, string][] = [
    ['Version', text(config.version)],
    [
      'Base de données',
      db.kind === 'pglite' ? 'PGlite (intégrée)' : db.kind === 'postgres' ? 'PostgreSQL' : text(db.kind),
    ],
    ['Dossier de données', text(config.data_dir)],
    ['Stockage des documents', storageText(config.document_storage)],
    ['Serveur d’envoi (SMTP) configuré', yesNo(mail.smtp_configured)],
    ['Expéditeur des e-mails', text(mail.from)],
    ['Adresse publique', text(mail.public_url)],
    ['Notifications par e-mail', NOTIFY_LABELS[String(config.notify_email)] ?? text(config.notify_email)],
    ['Tâches exécutées par ce serveur', yesNo(config.job_workers)],
    [
      'Sources CVE',
      Array.isArray(config.cve_sources) ? config.cve_sources.map(text).join(', ') || '—' : text(config.cve_sources),
    ],
    [
      'Niveau de journalisation (sortie standard)',
      STDOUT_LEVEL_LABELS[String(config.stdout_log_level)] ?? text(config.stdout_log_level),
    ],
    ['Proxy de confiance', yesNo(config.trust_proxy)],
    ...Object.entries(obj(config.secrets)).map(([k, v]): [string, string] => [
      SECRET_LABELS[k] ?? k,
      `fournie par ${SECRET_SOURCES[String(v)] ?? text(v)}`,
    ]),
    ['Dossier des sauvegardes', text(config.backups_dir)],
    ...Object.entries(config)
      .filter(([k]) => !KNOWN.has(k))
      .map(([k, v]): [string, string] => [k, text(v)]),
  ];
  return (
    <dl className="admin-dl">
      {rows.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function EditableForm({ config, onSaved }: { config: AdminConfig; onSaved: (config: AdminConfig) => void }) {
  const form = useForm({
    backup_location: config.editable?.backup_location ?? '',
    backup_retention_count: String(config.editable?.backup_retention_count ?? 10),
  });
  const validate = ({ backup_location, backup_retention_count }: typeof form.values) => {
    const path = backup_location.trim();
    const count = Number(backup_retention_count.trim());
    return {
      ...(path && !path.startsWith('/')
        ? { backup_location: 'L’emplacement doit être un chemin absolu (par exemple /var/backups/vigie).' }
        : {}),
      ...(!Number.isInteger(count) || count < 1 || count > 365
        ? { backup_retention_count: 'Un entier entre 1 et 365 est attendu.' }
        : {}),
    };
  };
  // spec §8: a failed update is shown, with the server's message for each field.
  const send = async ({ backup_location, backup_retention_count }: typeof form.values) => {
    const saved = await updateConfig({
      backup_location: backup_location.trim() || null,
      backup_retention_count: Number(backup_retention_count.trim()),
    });
    form.setNotice('Configuration enregistrée.');
    onSaved(saved);
  };

  return (
    <form
      className="card admin-form"
      onSubmit={form.onSubmit(send, { validate })}
      noValidate
      aria-labelledby={`${form.id}-title`}
    >
      <h2 id={`${form.id}-title`}>Sauvegardes</h2>
      <div className="vm-form">
        <TextField
          form={form}
          name="backup_location"
          label="Emplacement des sauvegardes"
          placeholder="Vide : dossier de données/backups"
          wide
        />
        <TextField
          form={form}
          name="backup_retention_count"
          label="Sauvegardes conservées"
          type="number"
          inputMode="numeric"
          min={1}
          max={365}
        />
        <FormError error={form.error} />
        {form.notice && (
          <p className="vm-success vm-wide" role="status">
            {form.notice}
          </p>
        )}
        <div className="vm-form-actions">
          <button type="submit" className="btn primary" disabled={form.submitting}>
            {form.submitting ? 'Enregistrement…' : 'Enregistrer'}
          </button>
        </div>
      </div>
    </form>
  );
}

/** Configuration: the server's runtime view (read-only) and its editable keys; spec §8 falls back to an empty object. */
export default function ConfigPage() {
  const [version, setVersion] = useState(0);
  const [saved, setSaved] = useState<AdminConfig | null>(null);
  const read = useResource(fetchConfig, [version]);
  const config = saved ?? read.data ?? null;
  const empty = !!config && Object.keys(config).length === 0;

  return (
    <section className="admin-page">
      <div className="vm-head">
        <h1>Configuration</h1>
        <button
          type="button"
          className="btn secondary"
          onClick={() => {
            setSaved(null);
            setVersion((n) => n + 1);
          }}
        >
          Actualiser
        </button>
      </div>
      <ReadStatus
        pending={read.loading}
        loading="Chargement de la configuration…"
        error={read.error}
        failure="Impossible de charger la configuration"
      />
      {read.data && <DataOriginNote origin={read.origin} />}
      {config && empty && <p className="vm-empty card">Aucune configuration à afficher.</p>}
      {config && !empty && (
        <>
          <p className="muted">
            Lue au démarrage du serveur (variables d’environnement) ; seuls les réglages ci-dessous se modifient ici.
            {config.updated_at ? ` Dernière modification : ${formatDateTime(config.updated_at)}` : ''}
            {config.updated_by ? ` par ${config.updated_by}.` : config.updated_at ? '.' : ''}
          </p>
          <EditableForm key={String(version)} config={config} onSaved={setSaved} />
          <section className="card" aria-labelledby="admin-runtime-title">
            <h2 id="admin-runtime-title">Configuration d’exécution</h2>
            <RuntimeView config={config} />
          </section>
        </>
      )}
    </section>
  );
}
