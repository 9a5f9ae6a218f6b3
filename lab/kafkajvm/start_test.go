package kafkajvm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStartSaysWhatTheJVMSaid: a JVM that does not start (a heap its
// options make too small: HotSpot prints "Error occurred during
// initialization of VM" and why on its standard output, then exits 1) is
// reported with its own words, and nothing about the driver's protocol.
// A stand-in java and javac (shell scripts) play the JDK, so no JVM is
// needed.
func TestStartSaysWhatTheJVMSaid(t *testing.T) {
	dir := t.TempDir()
	libs := filepath.Join(dir, "libs")
	if err := os.MkdirAll(filepath.Join(libs, "classes"), 0o755); err != nil {
		t.Fatal(err)
	}
	javac := filepath.Join(dir, "javac")
	java := filepath.Join(dir, "java")
	for path, body := range map[string]string{
		javac: "#!/bin/sh\nexit 0\n",
		java:  "#!/bin/sh\nprintf 'Error occurred during initialization of VM\\n'\nprintf 'Too small maximum heap\\n'\nexit 1\n",
	} {
		if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Start(Options{Libs: libs, Java: java, Javac: javac, JavaOpts: []string{"-Xmx1k"}})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"did not start", "Error occurred during initialization of VM", "Too small maximum heap", "-Xmx1k"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "key=value") {
		t.Errorf("error %q speaks of the driver's protocol", err)
	}
}
