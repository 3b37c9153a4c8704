// Package specyaml builds the YAML of a macro spec as the tools that write
// specs (gate's suggestions, record's recordings) lay it out: block
// mappings with flow-style leaves, templates double-quoted as in
// macros.d, and the params block. It is a leaf: yaml.v3 only.
package specyaml
