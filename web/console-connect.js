// Connect view: how an app reaches this emulator (per-tenant environment and client snippets, the SMTP
// and SMS sinks), named snapshots, a download of the whole state, and reset.
'use strict';

(() => {
  const connect = { info: null, snapshots: [], loaded: false };

  const ui = {
    overview: $('#connect-overview'), cards: $('#tenant-cards'), name: $('#snapshot-name'), save: $('#snapshot-save'),
    snapshots: $('#snapshot-list'), snapshotStatus: $('#snapshot-status'), reset: $('#reset-all'),
    resetGroup: $('#reset-all-confirm-group'), resetStatus: $('#reset-status'),
  };

  // ------------------------------------------------------------------ Loading

  async function loadInfo() {
    try {
      connect.info = await api('/info');
    } catch (error) {
      ui.overview.replaceChildren(el('p', { class: 'error-text', text: `Could not load /info: ${error.message}` }));
      return;
    }
    renderInfo();
  }

  async function loadSnapshots() {
    try {
      const answer = await api('/snapshots');
      // Entries are {name} objects; older builds answered plain names.
      connect.snapshots = (answer?.snapshots || []).map((s) => (typeof s === 'string' ? s : s?.name)).filter(Boolean);
    } catch (error) {
      showOutcome(ui.snapshotStatus, `Could not list snapshots: ${error.message}`, false);
    }
    renderSnapshots();
  }

  // ------------------------------------------------------------------ Snippets

  const js = JSON.stringify; // string literals for snippets: quoted and escaped

  /** Host and port without the scheme, for FIREBASE_AUTH_EMULATOR_HOST and friends. */
  const hostOf = (url) => { try { return new URL(url).host; } catch { return url; } };

  /** The same URL as the Android emulator reaches it: the host's loopback is 10.0.2.2 there. */
  function androidURL(url) {
    try {
      const parsed = new URL(url);
      if (['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname)) parsed.hostname = '10.0.2.2';
      return parsed.toString().replace(/\/$/, '');
    } catch { return url; }
  }
  const portOf = (url) => { try { return new URL(url).port || '80'; } catch { return '9099'; } };

  function snippets(tenant, base) {
    const h = tenant.hints || {};
    switch (tenant.dialect) {
      case 'supabase': {
        const url = h.SUPABASE_URL || base;
        const anon = h.SUPABASE_ANON_KEY || 'SUPABASE_ANON_KEY';
        const android = androidURL(url);
        return [
          ['supabase-js', `import { createClient } from "@supabase/supabase-js"\n\nconst supabase = createClient(${js(url)}, ${js(anon)})`],
          ['supabase-js in React Native', `import { createClient } from "@supabase/supabase-js"\nimport { Platform } from "react-native"\n\n`
            + `// The Android emulator reaches this machine at 10.0.2.2\nconst url = Platform.OS === "android" ? ${js(android)} : ${js(url)}\n`
            + `const supabase = createClient(url, ${js(anon)})`],
          ['supabase-swift', `import Supabase\n\nlet supabase = SupabaseClient(\n  supabaseURL: URL(string: ${js(url)})!,\n  supabaseKey: ${js(anon)}\n)`],
          ['supabase_flutter', `import 'dart:io' show Platform;\nimport 'package:supabase_flutter/supabase_flutter.dart';\n\n`
            + `// The Android emulator reaches this machine at 10.0.2.2\nawait Supabase.initialize(\n`
            + `  url: Platform.isAndroid ? ${js(android)} : ${js(url)},\n  anonKey: ${js(anon)},\n);`],
          ['supabase-py', `from supabase import create_client\n\nsupabase = create_client(${js(url)}, ${js(anon)})`],
        ];
      }
      case 'firebase': {
        const host = h.FIREBASE_AUTH_EMULATOR_HOST || hostOf(base);
        const project = h.GCLOUD_PROJECT || tenant.id;
        // No key at all when none reaches the project (see the tenant's notes): a placeholder to replace.
        const apiKey = h.FIREBASE_API_KEY || 'NO_API_KEY_REACHES_THIS_PROJECT';
        const tenantLine = h.FIREBASE_TENANT_ID ? `auth.tenantId = ${js(h.FIREBASE_TENANT_ID)}\n` : '';
        return [
          ['Firebase JS SDK', `import { initializeApp } from "firebase/app"\nimport { getAuth, connectAuthEmulator } from "firebase/auth"\n\n`
            + `const app = initializeApp({ apiKey: ${js(apiKey)}, projectId: ${js(project)} })\nconst auth = getAuth(app)\n`
            + `connectAuthEmulator(auth, ${js(`http://${host}`)})${tenantLine ? '\n' + tenantLine.trimEnd() : ''}`],
          ['@react-native-firebase/auth', `import auth from "@react-native-firebase/auth"\nimport { Platform } from "react-native"\n\n`
            + `// The Android emulator reaches this machine at 10.0.2.2\n`
            + `auth().useEmulator(Platform.OS === "android" ? ${js(androidURL(`http://${host}`))} : ${js(`http://${host}`)})`],
          ['Firebase iOS (Swift)', `import FirebaseAuth\n\nAuth.auth().useEmulator(withHost: ${js(host.replace(/:\d+$/, ''))}, port: ${portOf(`http://${host}`)})`
            + (h.FIREBASE_TENANT_ID ? `\nAuth.auth().tenantID = ${js(h.FIREBASE_TENANT_ID)}` : '')],
          ['Firebase Android (Kotlin)', `import com.google.firebase.auth.ktx.auth\nimport com.google.firebase.ktx.Firebase\n\n`
            + `// The Android emulator reaches this machine at 10.0.2.2\nFirebase.auth.useEmulator("10.0.2.2", ${portOf(`http://${host}`)})`
            + (h.FIREBASE_TENANT_ID ? `\nFirebase.auth.tenantId = ${js(h.FIREBASE_TENANT_ID)}` : '')],
          ['Admin SDKs (shell)', `export FIREBASE_AUTH_EMULATOR_HOST=${host}\nexport GCLOUD_PROJECT=${project}`],
        ];
      }
      case 'cognito': {
        const endpoint = h.AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER || base;
        const region = h.AWS_REGION || 'us-east-1';
        const pool = h.COGNITO_USER_POOL_ID || tenant.id;
        const client = h.COGNITO_CLIENT_ID || 'CLIENT_ID';
        return [
          ['boto3', `import boto3\n\ncognito = boto3.client(\n    "cognito-idp",\n    endpoint_url=${js(endpoint)},\n    region_name=${js(region)},\n`
            + `    aws_access_key_id="x", aws_secret_access_key="x",\n)`],
          ['Amplify JS (v6)', `import { Amplify } from "aws-amplify"\n\nAmplify.configure({\n  Auth: {\n    Cognito: {\n      userPoolId: ${js(pool)},\n`
            + `      userPoolClientId: ${js(client)},\n      userPoolEndpoint: ${js(endpoint)},\n    },\n  },\n})`],
          // Amplify Swift and Android take a custom user pool endpoint only as a bare host name, always over https
          // on 443 (AWSCognitoAuthPlugin, and Android's UserPoolConfiguration.validateEndpoint, refuse a scheme or a
          // port), so they reach Fauxth only through an https proxy (docs/cognito.md: the emulator's hosts file).
          ['Amplify Swift and Android: an https proxy in front of Fauxth (Amplify takes no http endpoint)',
            `caddy reverse-proxy --from cognito.localhost --to ${hostOf(endpoint)}`],
          ['Amplify Swift and Android (amplifyconfiguration.json)', amplifyConfig(pool, client, region, 'cognito.localhost')],
        ];
      }
      default:
        return [];
    }
  }

  /** The user pool part of an `amplifyconfiguration.json`, with the custom `Endpoint` (a host name) Amplify reads. */
  function amplifyConfig(pool, client, region, endpoint) {
    return JSON.stringify({ auth: { plugins: { awsCognitoAuthPlugin: { CognitoUserPool: { Default: {
      PoolId: pool, AppClientId: client, Region: region, Endpoint: endpoint,
    } } } } } }, null, 2);
  }

  function snippetBlock(title, text) {
    const pre = el('pre', { class: 'snippet', text });
    return el('div', { class: 'snippet-block' },
      el('div', { class: 'snippet-head' }, el('span', { text: title }), copyButton(text, pre, `${title} snippet`)), pre);
  }

  // ------------------------------------------------------------------ Rendering

  function overviewItem(label, value, copyable = true) {
    if (!value) return null;
    return el('div', { class: 'overview-item' }, el('p', { class: 'eyebrow', text: label }),
      copyable ? copyLine(value, 'copy-line', label) : el('p', { class: 'mono', text: value }));
  }

  function tenantCard(tenant, base) {
    const hints = Object.entries(tenant.hints || {});
    const env = hints.map(([key, value]) => `${key}=${value}`).join('\n');
    const count = tenantById(tenant.id)?.user_count;
    return el('section', { class: classes('card', 'tenant-card', tenant.dialect), 'data-tenant': tenant.id },
      el('div', { class: 'tenant-head' },
        el('span', { class: classes('dialect', tenant.dialect), text: tenant.dialect }),
        el('h2', { text: tenant.name || tenant.id }),
        el('span', { class: 'spacer' }),
        count != null ? el('a', { class: 'btn small', href: viewHref('users', tenant.id) }, `${count} user${count === 1 ? '' : 's'}`) : null),
      el('p', { class: 'mono muted', text: tenant.id }),
      el('div', { class: 'section-head' }, el('h3', { text: 'Environment' }), el('span', { class: 'spacer' }),
        hints.length ? copyButton(env, null, `all ${tenant.id} variables`, 'Copy all') : null),
      el('div', { class: 'env-lines' }, ...hints.map(([key, value]) => copyLine(`${key}=${value}`, 'copy-line env-line', key))),
      ...(tenant.notes || []).map((note) => el('p', { class: 'hint', text: note })),
      ...snippets(tenant, base).map(([title, text]) => snippetBlock(title, text)));
  }

  function renderInfo() {
    const info = connect.info;
    if (!info) return;
    ui.overview.replaceChildren(el('section', { class: 'card overview-card' },
      el('div', { class: 'tenant-head' }, el('h2', { text: `Fauxth ${info.version || ''}` }), el('span', { class: 'spacer' }),
        info.deterministic ? el('span', { class: 'badge-soft warn', text: 'deterministic' }) : null),
      el('div', { class: 'overview-grid' },
        overviewItem('Base URL', info.base_url),
        overviewItem('Control API', info.control_url),
        overviewItem('SMTP sink (the app\'s own mail)', info.smtp),
        overviewItem('SMS endpoint (Twilio-shaped)', info.sms_url),
        overviewItem('Console', info.console_url),
        info.listeners?.length ? overviewItem('Listening on', info.listeners.join('  '), false) : null),
      info.control_url ? el('p', { class: 'hint' }, 'OpenAPI: ',
        el('a', { href: `${API}/openapi.json`, target: '_blank', rel: 'noopener', text: 'openapi.json' })) : null));
    const base = info.base_url || location.origin;
    ui.cards.replaceChildren(...(info.tenants || []).map((tenant) => tenantCard(tenant, base)));
  }

  function renderSnapshots() {
    ui.snapshots.replaceChildren(...(connect.snapshots.length
      ? connect.snapshots.map((name) => el('li', { 'data-name': name },
        el('code', { class: 'grow', text: name }),
        el('button', { type: 'button', class: 'btn small', 'data-action': 'restore', 'aria-label': `Restore snapshot ${name}` }, 'Restore')))
      : [el('li', { class: 'empty', text: 'No snapshots yet.' })]));
  }

  // ------------------------------------------------------------------ Actions

  async function saveSnapshot() {
    const name = ui.name.value.trim();
    if (!name) {
      showOutcome(ui.snapshotStatus, 'Give the snapshot a name first.', false);
      ui.name.focus();
      return;
    }
    const ok = await runAction(ui.save, ui.snapshotStatus, () => api('/snapshots', { method: 'POST', body: { name } }), `Saved snapshot ${name}.`);
    if (ok) ui.name.value = '';
    loadSnapshots();
  }

  async function restoreSnapshot(button) {
    const name = button.closest('li').dataset.name;
    await runAction(button, ui.snapshotStatus, () => api(`/snapshots/${seg(name)}/restore`, { method: 'POST' }), `Restored ${name}.`);
  }

  // ------------------------------------------------------------------ Live

  onLive('event', ({ type }) => {
    if (/^(tenant\.|emulator\.reset|snapshot\.)/.test(type || '') && shared.current === 'connect') {
      loadSnapshots();
      shared.tenantsReady.then(loadInfo);
    }
  });

  // ------------------------------------------------------------------ Wiring

  function boot() {
    ui.save.addEventListener('click', saveSnapshot);
    ui.name.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') { event.preventDefault(); saveSnapshot(); }
    });
    ui.snapshots.addEventListener('click', (event) => {
      const button = event.target.closest('button[data-action="restore"]');
      if (button) restoreSnapshot(button);
    });
    wireConfirm(ui.reset, ui.resetGroup, (button) => runAction(button, ui.resetStatus,
      () => api('/reset', { method: 'POST' }), 'The emulator is back to its seed.'));
  }

  registerView('connect', {
    boot,
    async show(params, changed) {
      if (!changed && connect.loaded) return;
      connect.loaded = true;
      await shared.tenantsReady;
      loadInfo();
      loadSnapshots();
    },
    items: () => [],
  });
})();
