// Package templates holds the scaffolding `macrokit init` renders, embedded
// so the macrokit binary needs no checkout. Files are text/templates with
// [[ ]] delimiters (a spec's own {{ }} pass through untouched); a .tmpl
// suffix is dropped and a __name__ path element becomes the binary's name.
package templates
