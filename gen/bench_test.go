package gen

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/spec"
)

// benchTemplate is a realistic macro (page actions with post-conditions, an
// extract of rows, foreach with collect, if, http with JSON extraction, a
// call and an assert); %[1]s is the macro's name.
const benchTemplate = `macrokit: 1
name: %[1]s
version: 1.2.3
intent: synthetic macro %[1]s for the generator benchmark
description: |
  Looks a customer up, reads their orders, checks each one
  and reports a summary.
risk: act
params:
  required: [email]
  properties:
    email: {type: string, format: email, description: the customer's email}
    tier: {type: string, enum: [free, pro, enterprise], default: free}
    limit: {type: integer, minimum: 1, maximum: 100, default: 20}
    password: {type: string, secret: true}
    notify: {type: boolean, default: false}
result:
  required: [customer_id, orders, count]
  properties:
    customer_id: {type: string}
    count: {type: integer}
    orders:
      type: array
      items: {type: object, properties: {id: {type: string}, status: {type: string}, carrier: {type: string}}}
    region: {type: string}
examples:
  - say: run %[1]s for ada@example.com
    args: {email: ada@example.com, tier: pro}
steps:
  - call: {macro: base_lookup, args: {email: "{{ email }}"}, into: base}
  - goto: "{{ env.ACME_URL }}/customers/{{ base.id }}?limit={{ limit }}"
    expect: [{url_matches: "/customers/{{ base.id }}"}, {title_matches: "^Customer"}]
  - fill: {target: {label: Password}, value: "{{ password }}"}
  - select: {target: {label: Tier}, option: "{{ tier }}"}
  - click: {role: button, name: Save}
    expect:
      - text_present: {text: "{{ email }}", within: {role: status}}
      - request_succeeded: {url: /api/customers, method: POST}
    timeout: 15s
    retry: 1
  - extract:
      target: {testid: order-row}
      rows:
        id: {attr: data-id}
        status: {text: {testid: status}}
        link: {attr: href, target: {role: link}}
      max: 50
      into: found
  - extract: {target: {testid: order-row}, count: true, into: count}
  - assert: {that: "{{ count }}", lte: "{{ limit }}", message: too many orders}
  - foreach:
      in: "{{ found }}"
      as: order
      index: i
      max: 100
      steps:
        - goto: "{{ env.ACME_URL }}{{ order.link }}"
        - extract: {target: {testid: carrier}, into: carrier}
        - if:
            cond: {that: "{{ carrier }}", empty: true}
            then:
              - click: {role: button, name: "Assign carrier {{ i }}"}
                expect: [{element_gone: {role: button, name: "Assign carrier {{ i }}"}}]
      collect: {id: "{{ order.id }}", status: "{{ order.status }}", carrier: "{{ carrier }}"}
      into: orders
  - http:
      method: POST
      url: "{{ env.ACME_API }}/v1/audit"
      headers: {Authorization: "Bearer {{ env.ACME_TOKEN }}"}
      body: {customer: "{{ base.id }}", count: "{{ count }}", notify: "{{ notify }}"}
      expect_status: [200, 201]
      extract:
        region: {path: "$.region", type: string}
        audit_id: "$.id"
  - assert: {that: "{{ region }}", empty: false, message: the audit API stored no region}
  - if:
      cond: {text_present: Accept cookies}
      then:
        - click: {role: button, name: Accept}
          expect: [{element_gone: {role: button, name: Accept}}]
returns:
  customer_id: "{{ base.id }}"
  count: "{{ count }}"
  orders: "{{ orders }}"
  region: "{{ region }}"
`

const benchBase = `macrokit: 1
name: base_lookup
version: 1.0.0
intent: look a customer up by email
risk: read
params:
  required: [email]
  properties:
    email: {type: string}
result:
  required: [id]
  properties:
    id: {type: string}
steps:
  - goto: "{{ env.ACME_URL }}/search?q={{ email }}"
  - extract: {target: {testid: customer-row, nth: 0}, attr: data-id, into: id}
returns:
  id: "{{ id }}"
`

// benchFiles synthesizes n macros from benchTemplate plus the macro they
// call.
func benchFiles(n int) []spec.File {
	files := []spec.File{{Path: "macros.d/base_lookup.yaml", Data: []byte(benchBase)}}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("synthetic_macro_%04d", i)
		files = append(files, spec.File{Path: "macros.d/" + name + ".yaml", Data: []byte(fmt.Sprintf(benchTemplate, name))})
	}
	return files
}

func loadBench(tb testing.TB, n int) *spec.Set {
	set, diags := spec.LoadFiles(benchFiles(n), spec.Options{})
	if len(diags) > 0 {
		tb.Fatalf("benchmark specs are invalid:\n%s", diags)
	}
	return set
}

// BenchmarkGenerate1000 generates 1,000 macros (plus the one they call)
// from a checked set: code generation, gofmt and rendering only.
func BenchmarkGenerate1000(b *testing.B) {
	set := loadBench(b, 1000)
	b.ResetTimer()
	for b.Loop() {
		files, err := Generate(set, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(files) != 1002 {
			b.Fatalf("%d files", len(files))
		}
	}
}

// BenchmarkLoadAndGenerate1000 is BenchmarkGenerate1000 plus parsing and
// checking the 1,000 specs (what `macrokit generate` does after reading
// the files).
func BenchmarkLoadAndGenerate1000(b *testing.B) {
	files := benchFiles(1000)
	b.ResetTimer()
	for b.Loop() {
		set, diags := spec.LoadFiles(files, spec.Options{})
		if len(diags) > 0 {
			b.Fatal(diags)
		}
		if _, err := Generate(set, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBuild1000 measures `go build` of the 1,000-macro output, for the
// generate/build ratio. It is slow and runs only with MACROKIT_BENCH_BUILD=1:
//
//	MACROKIT_BENCH_BUILD=1 go test ./gen -run TestBuild1000 -v
func TestBuild1000(t *testing.T) {
	if os.Getenv("MACROKIT_BENCH_BUILD") != "1" {
		t.Skip("set MACROKIT_BENCH_BUILD=1 to measure go build of 1,000 generated macros")
	}
	start := time.Now()
	set := loadBench(t, 1000)
	loaded := time.Since(start)
	start = time.Now()
	files, err := Generate(set, Options{})
	if err != nil {
		t.Fatal(err)
	}
	generated := time.Since(start)
	tmp, err := os.MkdirTemp("..", ".gentest-build-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	var size int
	for name, data := range files {
		writeFile(t, filepath.Join(tmp, "generated", name), data)
		size += len(data)
	}
	pkg := "./" + filepath.Base(tmp) + "/generated"
	// Dependencies (runtime, engine, rod, ...) are built first so that the
	// timing is the generated package's own compile.
	if out, err := goCmd("build", "./runtime"); err != nil {
		t.Fatalf("go build ./runtime: %v\n%s", err, out)
	}
	start = time.Now()
	if out, err := goCmd("build", pkg); err != nil {
		t.Fatalf("go build: %v\n%s", err, strings.TrimSpace(out))
	}
	built := time.Since(start)
	start = time.Now()
	if out, err := goCmd("vet", pkg); err != nil {
		t.Fatalf("go vet: %v\n%s", err, strings.TrimSpace(out))
	}
	vetted := time.Since(start)
	t.Logf("1,000 macros: %d files, %.1f MB of Go", len(files), float64(size)/1e6)
	t.Logf("load+check %v, generate %v, go build %v (ratio build/generate %.1fx), go vet %v",
		loaded.Round(time.Millisecond), generated.Round(time.Millisecond), built.Round(time.Millisecond),
		float64(built)/float64(generated), vetted.Round(time.Millisecond))
}

func goCmd(args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	return string(out), err
}
