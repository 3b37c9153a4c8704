// Package widgets is the engine's real-widget test bed: a small back office
// built from the component libraries real apps use (antd, MUI + MUI X,
// react-select, Headless UI, Shoelace, Element Plus on Vue 3, react-window),
// installed from npm by the lockfile in app/ and built with vite at test
// time. Nothing built is committed: [Build] runs `npm ci` and `vite build`
// once per machine and source hash, into a cache directory.
//
// [Server] serves the built pages and the small API they call, and counts
// every side effect (saves, uploads, toggles, archives) per test session, so
// a test can assert that one action had exactly one effect. The tests in
// this package drive the pages through the engine with the targets a user
// would write and assert on the engine's evidence and on those counts.
package widgets
