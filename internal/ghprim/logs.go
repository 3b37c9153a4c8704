package ghprim

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxLogBytes caps a downloaded log (archive or text).
const maxLogBytes = 64 << 20

// FetchLogTextArgs are fetch_log_text's arguments.
type FetchLogTextArgs struct {
	// URL is the log URL (redirects are followed).
	URL string `json:"url"`
	// Token is a bearer token for the first request (not sent across hosts
	// on redirect).
	Token string `json:"token,omitempty"`
	// MaxChars is the most characters to return (>= 1).
	MaxChars int64 `json:"max_chars"`
}

// FetchLogText downloads a log (plain text, or a zip archive of per-job
// logs as GitHub Actions serves them) and cuts it to max_chars, with the
// HTTP client of [WithOptions].
//
//macrokit:primitive
func FetchLogText(ctx context.Context, a FetchLogTextArgs) (LogText, error) {
	return fetchLogText(ctx, optionsFrom(ctx).client(), a)
}

// LogText is the result of fetch_log_text.
type LogText struct {
	// Text is the log, cut to max_chars characters when longer: its
	// beginning (a fifth), a marker line, and its end (the rest).
	Text string `json:"text"`
	// TotalChars counts the characters of the whole log.
	TotalChars int64 `json:"total_chars"`
	// Truncated reports whether Text was cut.
	Truncated bool `json:"truncated"`
	// Files lists the archive members used, in order (empty for text).
	Files []string `json:"files"`
}

// fetchLogText downloads a.URL (following up to 10 redirects; the token is
// sent only to the first host and port, never to the storage host GitHub
// redirects to), unpacks a zip archive into one text, and cuts it to
// a.MaxChars.
func fetchLogText(ctx context.Context, client *http.Client, a FetchLogTextArgs) (LogText, error) {
	if a.MaxChars < 1 {
		return LogText{}, fmt.Errorf("max_chars must be at least 1, got %d", a.MaxChars)
	}
	u, err := url.Parse(a.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return LogText{}, fmt.Errorf("invalid log URL %q", a.URL)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return LogText{}, err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	if a.Token != "" {
		req.Header.Set("Authorization", "Bearer "+a.Token)
	}
	c := *client
	c.CheckRedirect = func(next *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return fmt.Errorf("stopped after 10 redirects")
		}
		if next.URL.Host != via[0].URL.Host {
			next.Header.Del("Authorization")
		}
		return nil
	}
	resp, err := c.Do(req)
	if err != nil {
		// *url.Error names the URL, never the headers: no token leaks.
		return LogText{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxLogBytes+1))
	if err != nil {
		return LogText{}, fmt.Errorf("read log: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return LogText{}, fmt.Errorf("GET %s: HTTP %d%s", u.Path, resp.StatusCode, apiMessage(body))
	}
	if len(body) > maxLogBytes {
		return LogText{}, fmt.Errorf("the log is larger than %d MiB", maxLogBytes>>20)
	}
	out := LogText{Files: []string{}}
	text := string(body)
	if bytes.HasPrefix(body, []byte("PK\x03\x04")) {
		text, out.Files, err = unzipLogs(body)
		if err != nil {
			return LogText{}, err
		}
	}
	text = strings.TrimPrefix(text, "\ufeff")
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	out.TotalChars = int64(utf8.RuneCountInString(text))
	out.Text, out.Truncated = Cut(text, int(a.MaxChars))
	return out, nil
}

// apiMessage returns ": <message>" from a GitHub JSON error body, or "".
func apiMessage(body []byte) string {
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &e) == nil && e.Message != "" {
		return ": " + e.Message
	}
	return ""
}

// unzipLogs joins the text files of a GitHub Actions log archive. The
// archive holds one file per job at the top ("0_build.txt") and the same
// log split per step in a folder per job; only the top-level files are
// used when there are any, so nothing appears twice. Files are ordered by
// their leading number, then name, each under a "=== name ===" line.
func unzipLogs(data []byte) (string, []string, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", nil, fmt.Errorf("the log archive is not a valid zip: %v", err)
	}
	var top, all []*zip.File
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		all = append(all, f)
		if !strings.Contains(f.Name, "/") {
			top = append(top, f)
		}
	}
	files := top
	if len(files) == 0 {
		files = all
	}
	sort.SliceStable(files, func(i, j int) bool { return logOrder(files[i].Name, files[j].Name) })
	var b strings.Builder
	names := make([]string, 0, len(files))
	var total uint64
	for _, f := range files {
		total += f.UncompressedSize64
		if total > maxLogBytes {
			return "", nil, fmt.Errorf("the log archive unpacks to more than %d MiB", maxLogBytes>>20)
		}
		rc, err := f.Open()
		if err != nil {
			return "", nil, fmt.Errorf("log archive member %s: %v", f.Name, err)
		}
		content, err := io.ReadAll(io.LimitReader(rc, maxLogBytes))
		rc.Close()
		if err != nil {
			return "", nil, fmt.Errorf("log archive member %s: %v", f.Name, err)
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("=== " + f.Name + " ===\n")
		b.WriteString(strings.TrimPrefix(string(content), "\ufeff"))
		names = append(names, f.Name)
	}
	return b.String(), names, nil
}

// logOrder sorts "2_test.txt" before "10_lint.txt": by the leading number
// of the base name when both have one, else by name.
func logOrder(a, b string) bool {
	na, oka := leadingNumber(a)
	nb, okb := leadingNumber(b)
	if oka && okb && na != nb {
		return na < nb
	}
	return a < b
}

func leadingNumber(name string) (int, bool) {
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	digits, _, ok := strings.Cut(name, "_")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil
}

// Cut returns s when it has at most max characters; otherwise its first
// fifth and its end around a line "[… N characters omitted …]", max
// characters in all (only the end when max is too small for the marker).
func Cut(s string, max int) (string, bool) {
	r := []rune(s)
	if len(r) <= max {
		return s, false
	}
	head := max / 5
	omitted := len(r) - max // a first guess; the marker's length depends on it
	for range 3 {
		marker := []rune(fmt.Sprintf("\n[… %d characters omitted …]\n", omitted))
		tail := max - head - len(marker)
		if tail < 1 {
			return string(r[len(r)-max:]), true
		}
		if o := len(r) - head - tail; o != omitted {
			omitted = o
			continue
		}
		return string(r[:head]) + string(marker) + string(r[len(r)-tail:]), true
	}
	return string(r[len(r)-max:]), true
}
