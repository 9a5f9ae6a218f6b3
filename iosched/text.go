package iosched

// Text forms of the settings (encoding.TextMarshaler and TextUnmarshaler),
// so that JSON, YAML and flags parse them once, where they enter, through
// the Parse functions. The JSON of each is its name, as before they had
// these methods.

// MarshalText returns the policy's canonical form.
func (p FsyncPolicy) MarshalText() ([]byte, error) { return []byte(p), nil }

// UnmarshalText parses b as ParseFsyncPolicy does.
func (p *FsyncPolicy) UnmarshalText(b []byte) error {
	v, err := ParseFsyncPolicy(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// MarshalText returns the read path's name.
func (p ReadPath) MarshalText() ([]byte, error) { return []byte(p), nil }

// UnmarshalText parses b as ParseReadPath does.
func (p *ReadPath) UnmarshalText(b []byte) error {
	v, err := ParseReadPath(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

func (h ReadaheadHint) String() string { return string(h) }

// MarshalText returns the hint's name.
func (h ReadaheadHint) MarshalText() ([]byte, error) { return []byte(h), nil }

// UnmarshalText parses b as ParseReadaheadHint does.
func (h *ReadaheadHint) UnmarshalText(b []byte) error {
	v, err := ParseReadaheadHint(string(b))
	if err != nil {
		return err
	}
	*h = v
	return nil
}

// ThrottlerKind names a throttle algorithm (ParseThrottlerKind): "kafka"
// or "token-bucket"; "" means kafka. Its text form is the name.
type ThrottlerKind string

func (k ThrottlerKind) String() string { return string(k) }

// MarshalText returns the name.
func (k ThrottlerKind) MarshalText() ([]byte, error) { return []byte(k), nil }

// UnmarshalText accepts what ParseThrottlerKind accepts, kept as written.
func (k *ThrottlerKind) UnmarshalText(b []byte) error {
	if _, err := ParseThrottlerKind(string(b)); err != nil {
		return err
	}
	*k = ThrottlerKind(b)
	return nil
}
