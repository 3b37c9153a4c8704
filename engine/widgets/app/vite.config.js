// One multi-page build: every pages/*.html is an entry. Sources are plain
// library usage as each library's docs show it; nothing here knows the engine.
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import vue from '@vitejs/plugin-vue';

const pages = Object.fromEntries(
  readdirSync(resolve(import.meta.dirname, 'pages'))
    .filter((f) => f.endsWith('.html'))
    .map((f) => [f.replace(/\.html$/, ''), resolve(import.meta.dirname, 'pages', f)]),
);

export default defineConfig({
  plugins: [react(), vue()],
  base: '/',
  logLevel: 'warn',
  build: {
    outDir: process.env.WIDGETS_OUT || 'dist',
    emptyOutDir: true,
    minify: false,
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 100000,
    rollupOptions: { input: pages },
  },
});
