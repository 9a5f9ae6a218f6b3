package lab

// ExitError is an error that asks for a specific exit status of the
// command that returns it: 2 when verification failed, 3 when all a
// verify found is recovery pending or a wrapped command's run was busy.
// A command's main reads it through ExitStatus (any error with that method
// works the same).
type ExitError struct {
	// Code is the exit status.
	Code int
	// Err says why.
	Err error
}

func (e ExitError) Error() string { return e.Err.Error() }
func (e ExitError) Unwrap() error { return e.Err }

// ExitStatus is the exit status asked for.
func (e ExitError) ExitStatus() int { return e.Code }
