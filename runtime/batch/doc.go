// Package batch reads the rows a batch runs a macro over (CSV with a
// header, or JSONL) and turns each into the macro's arguments, typed by its
// params schema: numbers, booleans, enums, arrays and objects from JSON
// cells, an empty cell omitted. Every row is checked before anything runs,
// and every problem is reported at once as `rows.csv:17: email: message`.
//
// Reading is streaming and linear: a file of any size is read row by row,
// a row over MaxRowBytes, a ragged row, invalid UTF-8 or a second header
// BOM is a positioned problem, never a crash.
package batch
