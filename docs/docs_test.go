// Package docs holds the guide's pages (Markdown) and the test that keeps
// them in shape: README.md at most 250 lines, every page under docs/ at most
// 400 lines with a table of contents, and every relative link of README.md
// and of the pages pointing at a file that exists and, for a #fragment in a
// Markdown file, at one of its headings. Nothing here reaches the network.
package docs

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

const (
	maxReadmeLines = 250
	maxPageLines   = 400
)

// root is the repository root, relative to this package's directory.
const root = ".."

// markdownFiles returns README.md and every .md file under docs/, as paths
// relative to the repository root with forward slashes.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lineCount counts lines as wc -l does, plus a last line without a newline.
func lineCount(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

func TestLengths(t *testing.T) {
	for _, f := range markdownFiles(t) {
		n := lineCount(read(t, f))
		limit := maxPageLines
		if f == "README.md" {
			limit = maxReadmeLines
		}
		if n > limit {
			t.Errorf("%s: %d lines, more than %d: move a section to its own page", f, n, limit)
		}
	}
}

// TestContents checks that every page of the guide (docs/*.md and
// docs/results/*.md; not the example inputs) has a table of contents.
func TestContents(t *testing.T) {
	for _, f := range markdownFiles(t) {
		if f == "README.md" || strings.HasPrefix(f, "docs/examples/") {
			continue
		}
		if !strings.Contains(read(t, f), "\nContents:\n") {
			t.Errorf("%s: no table of contents (a line \"Contents:\" followed by the list of its sections)", f)
		}
	}
}

var (
	fence    = regexp.MustCompile("(?m)^ {0,3}(```|~~~)")
	codeSpan = regexp.MustCompile("`+[^`]*`+")
	link     = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	heading  = regexp.MustCompile(`^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
	mdLink   = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	scheme   = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// prose returns the lines of a Markdown file outside fenced code blocks.
func prose(s string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(s, "\n") {
		if fence.MatchString(l) {
			in = !in
			continue
		}
		if !in {
			out = append(out, l)
		}
	}
	return out
}

// slug is GitHub's anchor for a heading: the rendered text lower-cased,
// every character that is not a letter, mark, digit, connector (such as
// '_'), space or hyphen removed, spaces turned into hyphens.
func slug(text string) string {
	text = mdLink.ReplaceAllString(text, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r) || unicode.Is(unicode.Pc, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the set of anchors of a Markdown file's headings, with
// GitHub's -1, -2, ... suffixes for repeated ones.
func anchors(s string) map[string]bool {
	set := map[string]bool{}
	seen := map[string]int{}
	for _, l := range prose(s) {
		m := heading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		a := slug(m[1])
		if n := seen[a]; n > 0 {
			seen[a] = n + 1
			a = fmt.Sprintf("%s-%d", a, n)
		} else {
			seen[a] = 1
		}
		set[a] = true
	}
	return set
}

// links returns the targets of the inline links and images of a Markdown
// file, outside code blocks and code spans.
func links(s string) []string {
	text := codeSpan.ReplaceAllString(strings.Join(prose(s), "\n"), "")
	var out []string
	for _, m := range link.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestLinks(t *testing.T) {
	cache := map[string]map[string]bool{}
	anchorsOf := func(rel string) map[string]bool {
		if a, ok := cache[rel]; ok {
			return a
		}
		a := anchors(read(t, rel))
		cache[rel] = a
		return a
	}
	checked := 0
	for _, f := range markdownFiles(t) {
		for _, target := range links(read(t, f)) {
			if scheme.MatchString(target) || strings.HasPrefix(target, "//") {
				continue // a URL, not a file of the repository
			}
			checked++
			path, frag, _ := strings.Cut(target, "#")
			dest := f // a bare #fragment points into the same file
			if path != "" {
				dest = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(f), path)))
				if strings.HasPrefix(dest, "../") {
					t.Errorf("%s: link %q leaves the repository", f, target)
					continue
				}
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(dest))); err != nil {
					t.Errorf("%s: link %q: no file %s", f, target, dest)
					continue
				}
			}
			if frag != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[frag] {
				t.Errorf("%s: link %q: %s has no heading with anchor #%s", f, target, dest, frag)
			}
		}
	}
	if checked == 0 {
		t.Error("no relative link found: the link parser is broken")
	}
}

// TestSlug pins the anchor rule on headings of this guide, worked by hand
// from GitHub's rule.
func TestSlug(t *testing.T) {
	for _, c := range []struct{ heading, want string }{
		{"Speed: the profiles, and what makes the best one fast", "speed-the-profiles-and-what-makes-the-best-one-fast"},
		{"`plan --dir LOGDIR|PARTITION`", "plan---dir-logdirpartition"},
		{"Kafka's own cleaner as a profile: `--profile kafka-jvm`", "kafkas-own-cleaner-as-a-profile---profile-kafka-jvm"},
		{"3. Choosing and cleaning a log", "3-choosing-and-cleaning-a-log"},
		{"Legacy messages (magic 0 and 1)", "legacy-messages-magic-0-and-1"},
		{"snake_case stays", "snake_case-stays"},
	} {
		if got := slug(strings.ReplaceAll(c.heading, "`", "")); got != c.want {
			t.Errorf("slug(%q) = %q, want %q", c.heading, got, c.want)
		}
	}
}

// TestLinkParser pins what counts as a link on a small hand-written page.
func TestLinkParser(t *testing.T) {
	page := "# T\n\nSee [a](a.md#x), ![img](i.png) and [`code` text](b.md).\n" +
		"Not `[c](c.md)` nor:\n\n```\n[d](d.md)\n```\n[e](https://example.com) [f](#t)\n"
	got := strings.Join(links(page), " ")
	if want := "a.md#x i.png b.md https://example.com #t"; got != want {
		t.Errorf("links = %q, want %q", got, want)
	}
	if a := anchors(page); !a["t"] || len(a) != 1 {
		t.Errorf("anchors = %v, want only t", a)
	}
}

// retired names the guide's pages once had; a pointer to one is stale (the
// rules are in kafka-rules.md, replication-model.md, divergence-cases.md,
// architecture.md and contributing.md).
var retired = regexp.MustCompile(`\b(KAFKA-REFERENCE|REPLICATION-REFERENCE|DIVERGENCE-CASES|CLEANER-CASES)\b|\b(DESIGN|STYLE)\.md\b`)

var (
	docPointer = regexp.MustCompile(`\bdocs/([A-Za-z0-9_./-]+\.md)(?: §(\d+))?`)
	numbered   = regexp.MustCompile(`^(\d+)\. `)
)

// TestCodePointers checks the pointers into the guide that code comments,
// scripts and test data hold ("docs/kafka-rules.md §3"): the page exists
// and, where a section is named by number, the page has a heading "N. ...".
func TestCodePointers(t *testing.T) {
	sections := map[string]map[string]bool{}
	numberedSections := func(rel string) map[string]bool {
		if s, ok := sections[rel]; ok {
			return s
		}
		s := map[string]bool{}
		for _, l := range prose(read(t, rel)) {
			if m := heading.FindStringSubmatch(l); m != nil {
				if n := numbered.FindStringSubmatch(m[1]); n != nil {
					s[n[1]] = true
				}
			}
		}
		sections[rel] = s
		return s
	}
	found := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".git" || rel == "testdata/kafka-real" || rel == "runs" {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(rel) {
		case ".go", ".yaml", ".yml", ".sh", ".md", "":
		default:
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > 1<<20 {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if rel != "docs/docs_test.go" {
			if m := retired.FindString(string(b)); m != "" {
				t.Errorf("%s: points at %s, a page that no longer exists", rel, m)
			}
		}
		for _, m := range docPointer.FindAllStringSubmatch(string(b), -1) {
			page := "docs/" + m[1]
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(page))); err != nil {
				t.Errorf("%s: points at %s, which does not exist", rel, page)
				continue
			}
			found++
			if m[2] != "" && !numberedSections(page)[m[2]] {
				t.Errorf("%s: points at %s §%s, which has no heading \"%s. ...\"", rel, page, m[2], m[2])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Error("no pointer into docs/ found: the scan is broken")
	}
}
