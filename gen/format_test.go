package gen

import (
	"bytes"
	"go/format"
	"testing"
)

func TestGroupImports(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"mixed", "package p\n\nimport (\n\"context\"\n\"github.com/a/b\"\nx \"github.com/a/c\"\n\"regexp\"\n)\n\nvar _ = 1\n",
			"package p\n\nimport (\n\t\"context\"\n\t\"regexp\"\n\n\t\"github.com/a/b\"\n\tx \"github.com/a/c\"\n)\n\nvar _ = 1\n"},
		{"std only", "package p\n\nimport (\n\"context\"\n\"time\"\n)\n",
			"package p\n\nimport (\n\t\"context\"\n\t\"time\"\n)\n"},
		{"module only", "package p\n\nimport (\n\"github.com/a/b\"\n\"golang.org/x/c\"\n)\n",
			"package p\n\nimport (\n\t\"github.com/a/b\"\n\t\"golang.org/x/c\"\n)\n"},
		{"single", "package p\n\nimport \"github.com/a/b\"\n", "package p\n\nimport \"github.com/a/b\"\n"},
		{"none", "// Header.\n\npackage p\n\nvar x = 1\n", "// Header.\n\npackage p\n\nvar x = 1\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var grouped bytes.Buffer
			if err := groupImports(&grouped, []byte(tc.in)); err != nil {
				t.Fatal(err)
			}
			got, err := gofmt(grouped.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			// gofmt's own output agrees: the groups survive it unchanged.
			if std, err := format.Source(got); err != nil || string(std) != string(got) {
				t.Errorf("not gofmt-stable: %v\n%s", err, std)
			}
		})
	}
}

func TestGroupImportsRejects(t *testing.T) {
	for _, in := range []string{
		"package p\n\nimport (\n\"a\" // why\n)\n",
		"package p\n\nimport \"a\"\nimport \"b\"\n",
		"package p\n\nimport (\n",
	} {
		if err := groupImports(new(bytes.Buffer), []byte(in)); err == nil {
			t.Errorf("groupImports(%q): no error", in)
		}
	}
}
