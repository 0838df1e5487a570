import { Fragment, useEffect, useRef, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { DataOriginNote, readOnlyNote } from '../../components/data-origin-note.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { FormCard, TextField } from '../../components/form-field.tsx';
import { ActionMessages, EmptyState, LoadStatus } from '../../components/list-state.tsx';
import { RowAction } from '../../components/row-action.tsx';
import { recordUiAction } from '../../lib/audit-log.ts';
import { currentTenantId, session } from '../../lib/auth/session.ts';
import type { UserProfile } from '../../lib/auth/types.ts';
import { messageOf } from '../../lib/error-message.ts';
import { formatDate, formatDateTime } from '../../lib/format.ts';
import { useForm } from '../../lib/use-form.ts';
import { usePolling } from '../../lib/use-polling.ts';
import { useResource } from '../../lib/use-resource.ts';
import {
  approveErrors,
  DEFAULT_ROTATION_S,
  managedTenants,
  normalizeCode,
  PANEL_LABELS,
  panelChoiceOf,
  settingsBody,
  settingsErrors,
  lastSeenText,
  type ApproveValues,
  type DisplaySettings,
  type Panel,
  type TenantChoice,
} from './display-rules.ts';
import {
  approveDisplay,
  fetchDisplays,
  removeDisplay,
  revokeDisplay,
  updateDisplay,
  type Display,
} from './displays-api.ts';
import { managesDisplaysIn } from './permissions.ts';
import { SettingsFields } from './settings-fields.tsx';
import './displays.css';

/**
 * « Écrans » (issue 22, docs/displays.md): pair a wall screen with the code it shows, choose what it shows, see when
 * each screen was last heard from, edit and revoke them.
 *
 * Where it lives: at `/displays`, outside the console under `/admin`. The console's frame turns away everyone but
 * tenant administrators (and its platform screens are superusers'), while screens are paired by a tenant's
 * administrators and managers; and the wall's QR code leads to `/displays?code=…`. So the page carries its own
 * « Administration › Écrans » trail, the main navigation's « Mode affichage » entry leads here for administrators
 * and managers, and the console lists « Écrans » among its screens for the administrators who look there.
 */
export default function DisplaysPage() {
  useSignals();
  const profile = session.value?.profile;
  const tenantId = currentTenantId();
  if (!profile || !managesDisplaysIn(profile, tenantId)) {
    return (
      <section className="page displays-page">
        <Trail />
        <h1>Écrans</h1>
        <p className="error" role="alert">
          Cette page est réservée aux administrateurs et aux responsables de l’organisation.
        </p>
      </section>
    );
  }
  // A tenant switch starts the screen afresh: its list, its forms and its choices belong to one tenant.
  return <DisplaysScreen key={tenantId ?? ''} profile={profile} tenantId={tenantId} />;
}

const LIST_REFRESH_MS = 60_000;

function Trail() {
  return (
    <nav aria-label="Fil d’Ariane" className="displays-trail">
      <span>Administration</span> <span aria-hidden="true">›</span> <span aria-current="page">Écrans</span>
    </nav>
  );
}

function tenantNameOf(profile: UserProfile, tenantId: string | undefined): string {
  if (profile.current_tenant?.id === tenantId && profile.current_tenant) return profile.current_tenant.name;
  return (
    profile.tenants?.find((t) => t.id === tenantId)?.name ??
    profile.tenant_memberships?.find((m) => m.tenant_id === tenantId)?.tenant_name ??
    'l’organisation'
  );
}

function DisplaysScreen({ profile, tenantId }: { profile: UserProfile; tenantId: string | undefined }) {
  const list = useResource(() => fetchDisplays(), [tenantId], { keepPrevious: true });
  // Screens report at each of their refreshes: the list is read again every minute while in view, and « il y a
  // 3 min » moves on with it.
  const [now, setNow] = useState(() => Date.now());
  usePolling(true, LIST_REFRESH_MS, async () => {
    await list.refresh();
    setNow(Date.now());
  });
  const readOnly = readOnlyNote(list.origin);
  const tenants = managedTenants(profile);
  const tenantName = tenantNameOf(profile, tenantId);
  const [editing, setEditing] = useState<Display | null>(null);
  const [confirming, setConfirming] = useState<Display | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const remove = (d: Display) => {
    recordUiAction('display_remove', { display: d.id });
    setNotice(null);
    setFailure(null);
    removeDisplay(d.id).then(
      () => {
        list.update((all) => all.filter((x) => x.id !== d.id));
        setNotice(`Écran « ${d.name} » retiré de la liste.`);
      },
      (err: unknown) => setFailure(messageOf(err)),
    );
  };

  const replace = (fresh: Display) =>
    list.update((all) => all.map((d) => (String(d.id) === String(fresh.id) ? fresh : d)));

  return (
    <section className="page displays-page">
      <Trail />
      <div className="vm-head">
        <h1>Écrans</h1>
        <Link href="/kiosk" className="btn secondary">
          Ouvrir le mur sur cet appareil
        </Link>
      </div>
      <p className="muted displays-intro">
        Mode affichage : un écran mural affiche les panneaux de supervision sans session ouverte. Sur l’écran, ouvrez{' '}
        <code>/kiosk</code> : il montre un code et un QR code. Saisissez ce code ci-dessous, ou scannez le QR code avec
        cet appareil pour arriver ici le code déjà rempli.
      </p>

      <ApproveForm
        tenants={tenants}
        tenantId={tenantId}
        readOnly={readOnly}
        onApproved={(created) => list.update((all) => [created, ...all.filter((d) => d.id !== created.id)])}
      />

      {editing && (
        <EditForm
          key={editing.id}
          display={editing}
          tenants={tenants}
          readOnly={readOnly}
          onClose={() => setEditing(null)}
          onSaved={(saved, changed) => {
            setEditing(null);
            if (!changed) {
              setNotice('Aucune modification à enregistrer.');
              return;
            }
            replace(saved);
            setNotice(
              `Écran « ${saved.name} » enregistré : il appliquera ces réglages à son prochain rafraîchissement.`,
            );
          }}
        />
      )}

      <section className="displays-list" aria-labelledby="displays-list-title">
        <h2 id="displays-list-title">Écrans appairés</h2>
        <DataOriginNote origin={list.origin} />
        <LoadStatus
          loaded={!!list.data}
          error={list.error}
          failure="Impossible de charger les écrans"
          loading="Chargement des écrans…"
        />
        <ActionMessages notice={notice} error={failure} />
        {confirming && (
          <RevokeDialog
            display={confirming}
            onCancel={() => setConfirming(null)}
            onRevoked={(revoked) => {
              setConfirming(null);
              replace(revoked);
              setNotice(`Écran « ${revoked.name} » révoqué : il s’éteint à son prochain rafraîchissement.`);
            }}
          />
        )}
        {list.data &&
          (list.data.length === 0 ? (
            <EmptyState>Aucun écran appairé pour le moment.</EmptyState>
          ) : (
            <DisplaysTable
              displays={list.data}
              caption={`Écrans appairés à ${tenantName}`}
              now={now}
              off={readOnly !== null}
              onEdit={(d) => {
                setConfirming(null);
                setEditing(d);
              }}
              onRevoke={(d) => {
                setEditing(null);
                setConfirming(d);
              }}
              onRemove={remove}
            />
          ))}
      </section>
    </section>
  );
}

/** The note a write form shows when its data is not live: why nothing may be sent. */
function ReadOnly({ note }: { note: string | null }) {
  if (!note) return null;
  return (
    <p className="muted vm-wide" role="note">
      {note}
    </p>
  );
}

const DEFAULT_SETTINGS = {
  name: '',
  rotation_s: String(DEFAULT_ROTATION_S),
  theme: 'dark',
  text_size: 'normal',
} as const;

function ApproveForm({
  tenants,
  tenantId,
  readOnly,
  onApproved,
}: {
  tenants: TenantChoice[];
  tenantId: string | undefined;
  readOnly: string | null;
  onApproved: (created: Display) => void;
}) {
  const search = useSearch();
  const [, navigate] = useLocation();
  const fresh = (code: string): ApproveValues => ({
    code,
    ...DEFAULT_SETTINGS,
    tenants: tenants.some((t) => t.id === tenantId) && tenantId ? [tenantId] : [],
    panels: panelChoiceOf(undefined),
  });
  // The wall's QR code leads to /displays?code=K7QH-4MZP: the code is there already.
  const form = useForm<ApproveValues>(() => fresh(normalizeCode(new URLSearchParams(search).get('code') ?? '')), {
    id: 'display-approve',
  });
  const off = readOnly !== null;
  return (
    <FormCard
      form={form}
      title="Appairer un écran"
      heading="h2"
      className="card displays-form"
      intro={<ReadOnly note={readOnly} />}
      onSubmit={form.onSubmit(
        async (values) => {
          if (off) return;
          const created = await approveDisplay({ code: normalizeCode(values.code), ...settingsBody(values) });
          // Ready for the next screen: same settings, no code, no name; the code leaves the address too.
          form.setValues((v) => ({ ...v, code: '', name: '' }));
          if (new URLSearchParams(search).has('code')) navigate('/displays', { replace: true });
          onApproved(created);
          form.setNotice(`Écran « ${created.name} » appairé : il affiche le mur dans quelques secondes.`);
        },
        { validate: approveErrors },
      )}
      submitLabel="Approuver l’écran"
      busyLabel="Approbation…"
      closeLabel="Effacer"
      onClose={() => {
        form.setValues(fresh(''));
        form.setErrors({});
        form.setError(null);
        form.setNotice(null);
      }}
      disabled={off}
    >
      <TextField
        form={form}
        name="code"
        label="Code affiché par l’écran"
        className="display-code"
        autoComplete="off"
        autoCapitalize="characters"
        spellCheck={false}
        placeholder="K7QH-4MZP"
        maxLength={20}
        disabled={off}
        onBlur={() => form.set('code', normalizeCode(form.values.code))}
      />
      <SettingsFields form={form} tenants={tenants} off={off} />
    </FormCard>
  );
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

/** A screen's settings as the form edits them. */
function settingsOf(display: Display): DisplaySettings {
  return {
    name: display.name,
    tenants: display.tenants.map((t) => String(t.id)),
    panels: panelChoiceOf(display.panels),
    rotation_s: String(display.rotation_s),
    theme: display.theme,
    text_size: display.text_size,
  };
}

function EditForm({
  display,
  tenants,
  readOnly,
  onClose,
  onSaved,
}: {
  display: Display;
  tenants: TenantChoice[];
  readOnly: string | null;
  onClose: () => void;
  onSaved: (saved: Display, changed: boolean) => void;
}) {
  const form = useForm<DisplaySettings>(() => settingsOf(display), { id: `display-edit-${display.id}` });
  const frame = useRef<HTMLDivElement>(null);
  // Opened from a row's « Modifier »: the focus goes to the form's first field.
  useEffect(() => frame.current?.querySelector<HTMLInputElement>('input')?.focus(), []);
  const off = readOnly !== null;
  // A tenant the screen shows but this user does not manage stays as it is (the server would refuse the change).
  const offered = [
    ...tenants,
    ...display.tenants
      .filter((t) => !tenants.some((m) => m.id === String(t.id)))
      .map((t) => ({ id: String(t.id), name: t.name, locked: true })),
  ];
  return (
    <div ref={frame}>
      <FormCard
        form={form}
        title={`Modifier l’écran « ${display.name} »`}
        heading="h2"
        className="card displays-form"
        intro={<ReadOnly note={readOnly} />}
        onSubmit={form.onSubmit(
          async (values) => {
            if (off) return;
            // Only what changed is sent: the screen applies it at its next refresh.
            const next = settingsBody(values);
            const before = settingsBody(settingsOf(display));
            const body = {
              ...(next.name !== before.name && { name: next.name }),
              ...(!sameSet(next.tenants, before.tenants) && { tenants: next.tenants }),
              ...(next.panels.join() !== before.panels.join() && { panels: next.panels }),
              ...(next.rotation_s !== before.rotation_s && { rotation_s: next.rotation_s }),
              ...(next.theme !== before.theme && { theme: next.theme }),
              ...(next.text_size !== before.text_size && { text_size: next.text_size }),
            };
            if (Object.keys(body).length === 0) {
              onSaved(display, false);
              return;
            }
            onSaved(await updateDisplay(display.id, body), true);
          },
          { validate: settingsErrors },
        )}
        submitLabel="Enregistrer"
        closeLabel="Annuler"
        onClose={onClose}
        disabled={off}
      >
        <SettingsFields form={form} tenants={offered} off={off} />
      </FormCard>
    </div>
  );
}

function DisplaysTable({
  displays,
  caption,
  now,
  off,
  onEdit,
  onRevoke,
  onRemove,
}: {
  displays: Display[];
  caption: string;
  now: number;
  off: boolean;
  onEdit: (d: Display) => void;
  onRevoke: (d: Display) => void;
  onRemove: (d: Display) => void;
}) {
  return (
    <DataTable
      headers={['Nom', 'Organisations', 'Panneaux', 'Dernier contact', 'Adresse IP', 'Version', 'État']}
      actions
      caption={caption}
      captionClass="sr-only"
      className="displays-table"
    >
      {displays.map((d) => (
        <tr key={d.id} className={d.revoked_at ? 'display-revoked' : undefined}>
          <th scope="row">{d.name}</th>
          <td className="display-tenants-cell">{d.tenants.map((t) => t.name).join(', ') || '—'}</td>
          <td className="display-panels-cell">
            {d.panels.map((p) => PANEL_LABELS[p as Panel] ?? p).join(', ') || '—'}
          </td>
          <td className="display-seen">
            {d.last_seen_at ? (
              <time dateTime={d.last_seen_at} title={formatDateTime(d.last_seen_at)}>
                {lastSeenText(d.last_seen_at, now, formatDateTime)}
              </time>
            ) : (
              'Jamais'
            )}
          </td>
          <td className="display-ip">{d.last_ip ? <Address ip={d.last_ip} /> : '—'}</td>
          <td>{d.version ?? '—'}</td>
          <td className="display-state">
            {d.revoked_at ? (
              <>
                <span className="vm-badge cancelled">Révoqué</span>{' '}
                <span className="muted">le {formatDate(d.revoked_at)}</span>
              </>
            ) : (
              <span className="vm-badge ok">Actif</span>
            )}
          </td>
          <td>
            {d.revoked_at ? (
              <div className="vm-actions">
                <RowAction action="remove" text="Retirer" name={d.name} disabled={off} onClick={() => onRemove(d)} />
              </div>
            ) : (
              <div className="vm-actions">
                <RowAction action="edit" text="Modifier" name={d.name} disabled={off} onClick={() => onEdit(d)} />
                <RowAction action="revoke" text="Révoquer" name={d.name} disabled={off} onClick={() => onRevoke(d)} />
              </div>
            )}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

/** An IP address that may wrap after its colons (IPv6), never inside a number. */
function Address({ ip }: { ip: string }) {
  const parts = ip.split(':');
  return (
    <>
      {parts.map((part, i) => (
        <Fragment key={i}>
          {i > 0 && (
            <>
              :<wbr />
            </>
          )}
          {part}
        </Fragment>
      ))}
    </>
  );
}

/**
 * « Révoquer l’écran « … » ? »: the screen's credential stops working at once and the wall blanks within one
 * refresh. The focus goes to « Annuler » (the safe choice); Échap cancels.
 */
function RevokeDialog({
  display,
  onCancel,
  onRevoked,
}: {
  display: Display;
  onCancel: () => void;
  onRevoked: (revoked: Display) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => cancel.current?.focus(), []);
  const confirm = () => {
    recordUiAction('display_revoke_confirmed', { display: display.id });
    setBusy(true);
    setError(null);
    revokeDisplay(display.id).then(onRevoked, (err: unknown) => {
      setBusy(false);
      setError(messageOf(err));
    });
  };
  return (
    <div
      className="card display-revoke"
      role="alertdialog"
      aria-labelledby="display-revoke-title"
      aria-describedby="display-revoke-text"
      onKeyDown={(e) => {
        if (e.key === 'Escape') onCancel();
      }}
    >
      <h3 id="display-revoke-title">Révoquer l’écran « {display.name} » ?</h3>
      <p id="display-revoke-text">
        L’écran perd son accès immédiatement et s’éteint à son prochain rafraîchissement. Pour l’utiliser de nouveau, il
        faudra l’appairer avec un nouveau code.
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="vm-actions">
        <button type="button" className="btn danger" disabled={busy} onClick={confirm}>
          {busy ? 'Révocation…' : 'Révoquer l’écran'}
        </button>
        <button ref={cancel} type="button" className="btn secondary" onClick={onCancel}>
          Annuler
        </button>
      </div>
    </div>
  );
}
