package interference

// Watch measures one phase: Start takes the first Sample, Stop the second
// and returns the judged Interval. The zero Watch is unusable; make one
// with Sampler.Start.
type Watch struct {
	s     Sampler
	t     Thresholds
	start Sample
}

// Start takes the first sample of a phase judged by t.
func (s Sampler) Start(t Thresholds) *Watch {
	return &Watch{s: s, t: t, start: s.Take()}
}

// Stop takes the second sample and returns the interval since Start.
func (w *Watch) Stop() Interval {
	return Between(w.start, w.s.Take(), w.t)
}

// Measure runs f between two samples and returns the interval with f's error.
func (s Sampler) Measure(t Thresholds, f func() error) (Interval, error) {
	w := s.Start(t)
	err := f()
	return w.Stop(), err
}
