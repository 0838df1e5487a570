/// <reference types="vitest/config" />
import { availableParallelism } from 'node:os';
import { defineConfig, type HtmlTagDescriptor, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { VitePWA } from 'vite-plugin-pwa';

// Kept equal to <meta name="theme-color"> in index.html (a test checks it).
export const THEME_COLOR = '#0b1f33';

const apiPort = process.env.API_PORT ?? '8081';

/**
 * index.html preloads what src/main.ts imports as it starts (React's code, then the app's, one task apart), as Vite
 * preloads an entry's static imports: the steps then wait on no network. Route pages stay out (lazy chunks).
 */
function preloadStartup(): Plugin {
  return {
    name: 'vigie-preload-startup',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const bundle = ctx.bundle;
        if (!bundle) return html;
        const chunkOf = (name: string) => {
          const c = bundle[name];
          return c?.type === 'chunk' ? c : undefined;
        };
        const entry = Object.values(bundle).find((c) => c.type === 'chunk' && c.isEntry);
        if (entry?.type !== 'chunk') return html;
        const preloaded = new Set([entry.fileName, ...entry.imports]);
        const startup = new Set<string>();
        const visit = (name: string) => {
          if (preloaded.has(name) || startup.has(name) || !chunkOf(name)) return;
          startup.add(name);
          chunkOf(name)!.imports.forEach(visit);
        };
        entry.dynamicImports.forEach(visit);
        const tags: HtmlTagDescriptor[] = [...startup].map((name) => ({
          tag: 'link',
          attrs: { rel: 'modulepreload', crossorigin: true, href: `/${name}` },
          injectTo: 'head',
        }));
        return { html, tags };
      },
    },
  };
}

export default defineConfig({
  plugins: [
    react(),
    preloadStartup(),
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'sw',
      filename: 'sw.ts',
      registerType: 'prompt',
      injectRegister: false,
      includeAssets: ['favicon.svg', 'icons/apple-touch-icon.png'],
      manifest: {
        id: '/',
        name: 'Vigie — risques et vulnérabilités',
        short_name: 'Vigie',
        description:
          'Suivi des menaces, vulnérabilités (CVE), scans, actifs, projets et risques pour les équipes sécurité, même hors ligne.',
        lang: 'fr',
        dir: 'ltr',
        start_url: '/',
        scope: '/',
        display: 'standalone',
        orientation: 'any',
        background_color: '#f4f6f9',
        theme_color: THEME_COLOR,
        categories: ['security', 'business', 'productivity'],
        icons: [
          { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
          { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
          { src: '/icons/maskable-192.png', sizes: '192x192', type: 'image/png', purpose: 'maskable' },
          { src: '/icons/maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
        shortcuts: [
          { name: 'Tableau de bord', url: '/dashboard', icons: [{ src: '/icons/icon-192.png', sizes: '192x192' }] },
          {
            name: 'Vulnérabilités',
            url: '/vulnerabilities',
            icons: [{ src: '/icons/icon-192.png', sizes: '192x192' }],
          },
          { name: 'Projets', url: '/projects', icons: [{ src: '/icons/icon-192.png', sizes: '192x192' }] },
        ],
      },
      injectManifest: {
        globPatterns: ['**/*.{js,css,html,svg,png,webmanifest,woff2}'],
        // One classic script (no imports to resolve): the es format's inlineDynamicImports is deprecated under Vite 8.
        rollupFormat: 'iife',
      },
      devOptions: { enabled: true, type: 'module', navigateFallback: 'index.html' },
    }),
  ],
  build: {
    target: 'es2022',
    sourcemap: true,
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            // React in one file (src/main.ts evaluates it in a task of its own), not split into pieces by importer.
            { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/ },
            // Sign-in state and rights, read by the shell and by most screens: one file, not a piece per set of importers.
            {
              name: 'session',
              test: /[\\/](src[\\/]lib[\\/](auth[\\/](session|roles|admin-access)\.ts|audit-log\.ts)|contract[\\/]permissions\.ts)$/,
            },
            // Small shared modules in one file rather than a file each: every response costs its headers (~1 KB).
            { name: 'shared', test: /[\\/](src[\\/]lib|contract|sw)[\\/]/, maxModuleSize: 1024 },
          ],
        },
      },
    },
  },
  server: { proxy: { '/api': `http://localhost:${apiPort}` } },
  test: {
    // Two workers even on two cores: the server suites wait on their databases as much as they compute (PGlite's
    // suites run in 10 min instead of 14, PostgreSQL's in 6 instead of 8, on this 2-core machine).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.{ts,tsx}'],
          environment: 'happy-dom',
          setupFiles: ['tests/unit/setup.ts'],
        },
      },
      {
        test: {
          name: 'client',
          include: ['tests/client/**/*.test.ts'],
          environment: 'node',
          setupFiles: ['tests/unit/setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'server',
          include: ['tests/server/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['tests/e2e/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
