package results

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cleanerlab/cleanerlab/results/interference"
)

// Environment is what a run ran on. Fields that could not be read are left empty and
// a line in Notes says why.
type Environment struct {
	CPUModel      string `json:"cpu_model"`       // "model name" of the first processor in /proc/cpuinfo
	LogicalCores  int    `json:"logical_cores"`   // processors listed in /proc/cpuinfo
	UsableCores   int    `json:"usable_cores"`    // CPUs in this process's affinity mask at capture (after --cpus)
	GOMAXPROCS    int    `json:"gomaxprocs"`      // runtime.GOMAXPROCS(0) at capture
	MemTotalBytes int64  `json:"mem_total_bytes"` // MemTotal of /proc/meminfo, in bytes
	KernelRelease string `json:"kernel_release"`  // uname -r
	KernelVersion string `json:"kernel_version"`  // uname -v
	Machine       string `json:"machine"`         // uname -m
	GoVersion     string `json:"go_version"`      // runtime.Version()
	GOOS          string `json:"goos"`
	GOARCH        string `json:"goarch"`
	// Commit is the git commit of the code that ran: the build's vcs.revision, else
	// `git rev-parse HEAD` in the module directory, else "unknown".
	Commit string `json:"commit"`
	// CommitSource says where Commit came from: "vcs.revision", "git" or "unknown".
	CommitSource string `json:"commit_source"`
	// CommitModified is true when the work tree differed from Commit (tracked files
	// only); nil when that is not known.
	CommitModified *bool     `json:"commit_modified,omitempty"`
	Hostname       string    `json:"hostname"`
	CapturedAt     time.Time `json:"captured_at"`
	DataDir        DataDir   `json:"data_dir"`
	Notes          []string  `json:"notes,omitempty"`
}

// CaptureEnvironment describes this machine and the file system and block device that
// hold dataDir, reading the machine's /proc and /sys. Missing pieces are left empty
// with a note in Environment.Notes; the error is always nil today and is kept so
// that a future fatal condition need not change callers.
func CaptureEnvironment(dataDir string) (Environment, error) {
	return DefaultSource.CaptureEnvironment(dataDir)
}

// CaptureEnvironment is CaptureEnvironment reading s's proc and sys trees. dataDir is
// stat'ed on the real file system whatever s is.
func (s Source) CaptureEnvironment(dataDir string) (Environment, error) {
	env := Environment{
		UsableCores: interference.Allowed(),
		GOMAXPROCS:  runtime.GOMAXPROCS(0),
		GoVersion:   runtime.Version(),
		GOOS:        runtime.GOOS,
		GOARCH:      runtime.GOARCH,
		CapturedAt:  time.Now().UTC(),
	}
	note := func(format string, args ...any) { env.Notes = append(env.Notes, fmt.Sprintf(format, args...)) }

	if fs, err := s.procFS(); err != nil {
		note("procfs at %s: %v", s.proc(), err)
	} else {
		env.CPUModel, env.LogicalCores = cpuModel(fs, note)
		if mi, err := fs.Meminfo(); err != nil {
			note("meminfo: %v", err)
		} else if mi.MemTotalBytes != nil {
			env.MemTotalBytes = int64(*mi.MemTotalBytes)
		} else {
			note("meminfo has no MemTotal")
		}
	}

	var uts unix.Utsname
	if err := unix.Uname(&uts); err != nil {
		note("uname: %v", err)
	} else {
		env.KernelRelease = unix.ByteSliceToString(uts.Release[:])
		env.KernelVersion = unix.ByteSliceToString(uts.Version[:])
		env.Machine = unix.ByteSliceToString(uts.Machine[:])
	}

	if h, err := os.Hostname(); err != nil {
		note("hostname: %v", err)
	} else {
		env.Hostname = h
	}

	env.Commit, env.CommitSource, env.CommitModified = findCommit(note)

	if dataDir != "" {
		env.DataDir = s.describeDataDir(dataDir, note)
	} else {
		note("no data directory given: file system and device not captured")
	}
	return env, nil
}

// findCommit returns the commit, where it came from, and whether the tree was
// modified (nil when unknown).
func findCommit(note func(string, ...any)) (commit, source string, modified *bool) {
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev, mod string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				mod = s.Value
			}
		}
		if rev != "" {
			if mod != "" {
				m := mod == "true"
				modified = &m
			}
			return rev, "vcs.revision", modified
		}
	}
	dir := moduleDir()
	if dir == "" {
		note("commit: no vcs.revision in build info (built with -buildvcs=false?) and no go.mod found above the working directory or the executable")
		return "unknown", "unknown", nil
	}
	rev, err := git(dir, "rev-parse", "HEAD")
	if err != nil {
		note("commit: no vcs.revision in build info, and git rev-parse HEAD in %s: %v", dir, err)
		return "unknown", "unknown", nil
	}
	// --no-optional-locks keeps git status from rewriting the index: this only reads.
	if st, err := git(dir, "--no-optional-locks", "status", "--porcelain", "--untracked-files=no"); err == nil {
		m := st != ""
		modified = &m
	} else {
		note("commit: git status in %s: %v", dir, err)
	}
	return rev, "git", modified
}

// git runs a read-only git command in dir and returns its trimmed stdout.
func git(dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("%w: %s", err, msg)
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// moduleDir finds the directory of this module's go.mod, walking up from the working
// directory, then from the executable's directory. "" when neither has one.
func moduleDir() string {
	want := modulePath()
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, dir := range starts {
		for {
			if p, ok := goModPath(filepath.Join(dir, "go.mod")); ok && (want == "" || p == want) {
				return dir
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return ""
}

// modulePath is the main module's path from the build info ("" under go test, where
// the main module is the test binary's).
func modulePath() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Path == "" || bi.Main.Path == "command-line-arguments" {
		return ""
	}
	return bi.Main.Path
}

// goModPath returns the module path declared in a go.mod file.
func goModPath(file string) (string, bool) {
	f, err := os.Open(file)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), true
		}
	}
	return "", true
}
