// Package browsertest gives a test binary one shared Chromium: the first
// test that needs it launches it, [Close] (from TestMain) closes it, and
// every test opens its pages in browser contexts of its own, so tests do not
// see each other. Without Chromium, or with -short, the tests that need it
// skip. The engine's own tests cannot use it (it imports the engine) and
// keep their own.
package browsertest
