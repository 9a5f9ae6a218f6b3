// Package kubernetes_test checks the Kubernetes manifests of
// deploy/kubernetes: each parses, strictly (unknown fields are errors),
// into its Kubernetes API type from k8s.io/api, the sweep Job is an Indexed
// Job whose pods run shard $(JOB_COMPLETION_INDEX)/N with the volumes they
// name mounted, and the cleanerlab command lines they hold are accepted by
// the cleanerlab built from this tree. No cluster runs here.
package kubernetes_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"sigs.k8s.io/yaml"
)

func readStrict(t *testing.T, file string, into any) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(b, into); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

func readJob(t *testing.T, file string) *batchv1.Job {
	t.Helper()
	var j batchv1.Job
	readStrict(t, file, &j)
	if j.APIVersion != "batch/v1" || j.Kind != "Job" {
		t.Fatalf("%s: apiVersion %q kind %q, want batch/v1 Job", file, j.APIVersion, j.Kind)
	}
	return &j
}

// flagValue returns the value following --name in args.
func flagValue(t *testing.T, file string, args []string, name string) string {
	t.Helper()
	i := slices.Index(args, "--"+name)
	if i < 0 || i+1 >= len(args) {
		t.Fatalf("%s: args %q have no --%s VALUE", file, args, name)
	}
	return args[i+1]
}

// mountOf returns the mount path of the named volume in c.
func mountOf(c *corev1.Container, name string) string {
	for _, m := range c.VolumeMounts {
		if m.Name == name {
			return m.MountPath
		}
	}
	return ""
}

// volume returns the pod's volume of that name.
func volume(t *testing.T, file string, spec *corev1.PodSpec, name string) *corev1.Volume {
	t.Helper()
	for i := range spec.Volumes {
		if spec.Volumes[i].Name == name {
			return &spec.Volumes[i]
		}
	}
	t.Fatalf("%s: no volume %q", file, name)
	return nil
}

// env returns the container's env var of that name.
func env(c *corev1.Container, name string) *corev1.EnvVar {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i]
		}
	}
	return nil
}

var varRef = regexp.MustCompile(`\$\(([A-Z_][A-Z0-9_]*)\)`)

// expand replaces $(VAR) as the kubelet does with vars; a reference to a
// variable the container does not define is an error.
func expand(t *testing.T, file string, c *corev1.Container, s string, vars map[string]string) string {
	t.Helper()
	return varRef.ReplaceAllStringFunc(s, func(ref string) string {
		name := varRef.FindStringSubmatch(ref)[1]
		if env(c, name) == nil {
			t.Errorf("%s: %s uses $(%s), which the container's env does not define (the kubelet would leave it as is)", file, s, name)
		}
		v, ok := vars[name]
		if !ok {
			t.Fatalf("%s: no test value for $(%s)", file, name)
		}
		return v
	})
}

func TestSweepJob(t *testing.T) {
	const file = "sweep-job.yaml"
	j := readJob(t, file)
	if mode := j.Spec.CompletionMode; mode == nil || *mode != batchv1.IndexedCompletion {
		got := "unset"
		if mode != nil {
			got = string(*mode)
		}
		t.Fatalf("%s: completionMode %s, want Indexed", file, got)
	}
	if j.Spec.Completions == nil || *j.Spec.Completions < 1 {
		t.Fatalf("%s: completions %v", file, j.Spec.Completions)
	}
	n := int(*j.Spec.Completions)
	if j.Spec.BackoffLimitPerIndex == nil {
		t.Errorf("%s: no backoffLimitPerIndex: one failing shard would fail the others", file)
	}
	checkNoRetryOnExit1(t, file, j, batchv1.PodFailurePolicyActionFailIndex)
	pod := &j.Spec.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("%s: restartPolicy %q, want Never (a shard restarted in place would mix two attempts' records)", file, pod.RestartPolicy)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%s: %d containers, want 1", file, len(pod.Containers))
	}
	c := &pod.Containers[0]
	shards := env(c, "SHARDS")
	if shards == nil || shards.Value != strconv.Itoa(n) {
		t.Fatalf("%s: env SHARDS %v, want %d = completions", file, shards, n)
	}
	idx := env(c, "JOB_COMPLETION_INDEX")
	if idx == nil || idx.ValueFrom == nil || idx.ValueFrom.FieldRef == nil ||
		idx.ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
		t.Fatalf("%s: env JOB_COMPLETION_INDEX %+v, want the job-completion-index annotation", file, idx)
	}
	if got := flagValue(t, file, c.Args, "shard"); got != "$(JOB_COMPLETION_INDEX)/$(SHARDS)" {
		t.Errorf("%s: --shard %q, want $(JOB_COMPLETION_INDEX)/$(SHARDS)", file, got)
	}
	// The data directory is the node's (hostPath), mounted where --dir says.
	dir := flagValue(t, file, c.Args, "dir")
	if mountOf(c, "data") != dir {
		t.Errorf("%s: --dir %s, but volume data is mounted at %q", file, dir, mountOf(c, "data"))
	}
	if v := volume(t, file, pod, "data"); v.HostPath == nil && v.PersistentVolumeClaim == nil {
		t.Errorf("%s: volume data is neither a hostPath nor a PVC", file)
	}
	// The records go to the shared volume.
	out := flagValue(t, file, c.Args, "out")
	rec := mountOf(c, "records")
	if rec == "" || !strings.HasPrefix(out, rec+"/") {
		t.Errorf("%s: --out %s is not under the records mount %q", file, out, rec)
	}
	checkRecordsClaim(t, file, volume(t, file, pod, "records"))
	// The data directory is handed to the lab's user first.
	if len(pod.InitContainers) != 1 || mountOf(&pod.InitContainers[0], "data") != dir {
		t.Errorf("%s: want one init container owning the data directory %s", file, dir)
	}
	// Scheduling: one shard per node under test.
	a := pod.Affinity
	if a == nil || a.PodAntiAffinity == nil || len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 ||
		a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey != "kubernetes.io/hostname" {
		t.Errorf("%s: want a required pod anti-affinity on kubernetes.io/hostname", file)
	} else if sel := a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].LabelSelector; sel == nil ||
		!matches(sel.MatchLabels, j.Spec.Template.Labels) {
		t.Errorf("%s: the anti-affinity's selector does not select the shard pods", file)
	}

	// Every pod's command line, with its index, is one the CLI accepts:
	// shards 0..N-1 together list every run of the sweep once.
	bin := cleanerlab(t)
	seen := map[string]int{}
	total := -1
	for i := 0; i < n; i++ {
		args := make([]string, len(c.Args))
		for k, a := range c.Args {
			args[k] = expand(t, file, c, a, map[string]string{"JOB_COMPLETION_INDEX": strconv.Itoa(i), "SHARDS": strconv.Itoa(n), "NODE_NAME": "node-a"})
		}
		lines := dryRun(t, file, bin, args)
		if total < 0 {
			total = lines.total
		}
		for _, r := range lines.runs {
			seen[r]++
		}
	}
	if len(seen) != total {
		t.Errorf("%s: shards 0..%d list %d distinct runs, the sweep has %d", file, n-1, len(seen), total)
	}
	for r, k := range seen {
		if k != 1 {
			t.Errorf("%s: run %s listed by %d shards", file, r, k)
		}
	}
}

// checkNoRetryOnExit1 checks j's podFailurePolicy: cleanerlab sweep exits 1
// when a run of the shard failed, after writing a complete record
// (shard.json status complete, the run's error in it). A retry would write
// a second complete record of the shard, and report --merge refuses two
// complete records of one shard; so exit status 1 must end the shard
// (want: FailIndex for an Indexed Job, FailJob for one shard), while a
// killed or evicted pod (137, 143: a running or stopped record, which a
// complete one supersedes) is still retried.
func checkNoRetryOnExit1(t *testing.T, file string, j *batchv1.Job, want batchv1.PodFailurePolicyAction) {
	t.Helper()
	found := false
	if pfp := j.Spec.PodFailurePolicy; pfp != nil {
		for _, r := range pfp.Rules {
			if r.OnExitCodes == nil || r.OnExitCodes.Operator != batchv1.PodFailurePolicyOnExitCodesOpIn {
				continue
			}
			if r.Action == want && slices.Contains(r.OnExitCodes.Values, 1) {
				found = true
			}
			stops := r.Action == batchv1.PodFailurePolicyActionFailIndex || r.Action == batchv1.PodFailurePolicyActionFailJob
			if stops && (slices.Contains(r.OnExitCodes.Values, 137) || slices.Contains(r.OnExitCodes.Values, 143)) {
				t.Errorf("%s: podFailurePolicy rule %v stops the retry of a killed shard", file, r)
			}
		}
	}
	if !found {
		t.Errorf("%s: no podFailurePolicy rule %s onExitCodes In [1]: a shard whose runs failed (exit 1, complete record) would be retried into a second complete record, which report --merge refuses", file, want)
	}
}

func TestRerunShardJob(t *testing.T) {
	const file = "rerun-shard-job.yaml"
	j := readJob(t, file)
	checkNoRetryOnExit1(t, file, j, batchv1.PodFailurePolicyActionFailJob)
	pod := &j.Spec.Template.Spec
	c := &pod.Containers[0]
	if got := flagValue(t, file, c.Args, "shard"); got != "$(SHARD)" {
		t.Errorf("%s: --shard %q, want $(SHARD)", file, got)
	}
	shard := env(c, "SHARD")
	if shard == nil {
		t.Fatalf("%s: no env SHARD", file)
	}
	if mountOf(c, "data") != flagValue(t, file, c.Args, "dir") {
		t.Errorf("%s: data volume not mounted at --dir", file)
	}
	checkRecordsClaim(t, file, volume(t, file, pod, "records"))
	args := make([]string, len(c.Args))
	for k, a := range c.Args {
		args[k] = expand(t, file, c, a, map[string]string{"SHARD": shard.Value, "NODE_NAME": "node-a"})
	}
	dryRun(t, file, cleanerlab(t), args)
}

func TestMergeJob(t *testing.T) {
	const file = "merge-job.yaml"
	j := readJob(t, file)
	pod := &j.Spec.Template.Spec
	c := &pod.Containers[0]
	if len(c.Args) < 1 || c.Args[0] != "report" || !slices.Contains(c.Args, "--merge") {
		t.Fatalf("%s: args %q, want report --merge ...", file, c.Args)
	}
	rec := mountOf(c, "records")
	if rec == "" || c.Args[len(c.Args)-1] != rec {
		t.Errorf("%s: merges %q, want the records mount %q", file, c.Args[len(c.Args)-1], rec)
	}
	if out := flagValue(t, file, c.Args, "out"); !strings.HasPrefix(out, rec+"/") {
		t.Errorf("%s: --out %s is not on the records volume", file, out)
	}
	checkRecordsClaim(t, file, volume(t, file, pod, "records"))
	// The CLI takes these flags: on an empty records directory it says
	// there is no shard record (not "unknown flag").
	tmp := t.TempDir()
	args := slices.Clone(c.Args)
	for k, a := range args {
		if a == rec {
			args[k] = tmp
		} else if strings.HasPrefix(a, rec+"/") {
			args[k] = filepath.Join(tmp, strings.TrimPrefix(a, rec+"/"))
		}
	}
	out, err := exec.Command(cleanerlab(t), args...).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "holds no shard record") {
		t.Errorf("%s: cleanerlab %q on an empty directory: %v\n%s\nwant the no-shard-record error", file, args, err, out)
	}
}

func TestRecordsClaimAndNetworkPolicy(t *testing.T) {
	var pvc corev1.PersistentVolumeClaim
	readStrict(t, "records-pvc.yaml", &pvc)
	if pvc.Kind != "PersistentVolumeClaim" || pvc.Name != "cleanerlab-records" ||
		!slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Errorf("records-pvc.yaml: %s %s %v, want PersistentVolumeClaim cleanerlab-records, ReadWriteMany (shards on several nodes write at once)",
			pvc.Kind, pvc.Name, pvc.Spec.AccessModes)
	}
	var np networkingv1.NetworkPolicy
	readStrict(t, "network-policy.yaml", &np)
	if np.Kind != "NetworkPolicy" || len(np.Spec.Ingress) != 0 || len(np.Spec.Egress) != 0 ||
		!slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) || !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress) {
		t.Errorf("network-policy.yaml: want a NetworkPolicy denying all ingress and egress, got %+v", np.Spec)
	}
	for _, f := range []string{"sweep-job.yaml", "merge-job.yaml", "rerun-shard-job.yaml"} {
		j := readJob(t, f)
		if !matches(np.Spec.PodSelector.MatchLabels, j.Spec.Template.Labels) {
			t.Errorf("%s: its pods (labels %v) are not selected by the network policy %v", f, j.Spec.Template.Labels, np.Spec.PodSelector.MatchLabels)
		}
	}
}

// TestDockerfile checks the image build: a static binary, an empty base,
// and the experiments the Jobs name.
func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(b)
	for _, want := range []string{"CGO_ENABLED=0", "FROM scratch", "COPY --from=build /src/scripts/experiments /experiments", `ENTRYPOINT ["/cleanerlab"]`} {
		if !strings.Contains(df, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	if strings.Contains(df, "RUN") && strings.Index(df, "FROM scratch") < strings.LastIndex(df, "RUN") {
		t.Errorf("Dockerfile: a RUN after FROM scratch (the final image has no shell)")
	}
}

func checkRecordsClaim(t *testing.T, file string, v *corev1.Volume) {
	t.Helper()
	if v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != "cleanerlab-records" {
		t.Errorf("%s: volume records is not the PVC cleanerlab-records of records-pvc.yaml", file)
	}
}

func matches(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

type dryRunLines struct {
	total int
	runs  []string
}

var shardLine = regexp.MustCompile(`^shard (\d+)/(\d+) of (\d+) runs`)

// dryRun runs cleanerlab ARGS --dry-run with the image's /experiments
// mapped to scripts/experiments, and reads the runs it lists.
func dryRun(t *testing.T, file, bin string, args []string) dryRunLines {
	t.Helper()
	args = slices.Clone(args)
	for k, a := range args {
		if rest, ok := strings.CutPrefix(a, "/experiments/"); ok {
			args[k] = filepath.Join("..", "..", "scripts", "experiments", rest)
		}
	}
	args = append(args, "--dry-run")
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: cleanerlab %q: %v\n%s", file, args, err, out)
	}
	var l dryRunLines
	l.total = -1
	for _, line := range strings.Split(string(out), "\n") {
		if m := shardLine.FindStringSubmatch(line); m != nil {
			l.total, _ = strconv.Atoi(m[3])
			continue
		}
		f := strings.Fields(line)
		if len(f) >= 2 && strings.HasPrefix(f[1], "Benchmark") {
			l.runs = append(l.runs, strings.Join(f[1:], " "))
		}
	}
	if l.total < 0 || len(l.runs) == 0 {
		t.Fatalf("%s: cleanerlab %q printed no shard line or no runs:\n%s", file, args, out)
	}
	return l
}

var (
	buildOnce sync.Once
	bin       string
	buildOut  []byte
	buildErr  error
)

func cleanerlab(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cleanerlab-k8s-test-")
		if err != nil {
			buildErr = err
			return
		}
		bin = filepath.Join(dir, "cleanerlab")
		cmd := exec.Command("go", "build", "-o", bin, "./cmd/cleanerlab")
		cmd.Dir = filepath.Join("..", "..")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		buildOut, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("go build ./cmd/cleanerlab (CGO_ENABLED=0, as the image): %v\n%s", buildErr, buildOut)
	}
	return bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bin != "" {
		os.RemoveAll(filepath.Dir(bin))
	}
	os.Exit(code)
}
