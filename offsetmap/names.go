package offsetmap

import (
	"fmt"
	"slices"
	"strings"
)

// HasherName names a hasher (NewHasher, HasherNames): a typed setting whose
// text form (JSON, YAML, flags) is the name, checked where it is parsed.
type HasherName string

func (n HasherName) String() string { return string(n) }

// MarshalText returns the name.
func (n HasherName) MarshalText() ([]byte, error) { return []byte(n), nil }

// UnmarshalText accepts any name NewHasher accepts, kept as written.
func (n *HasherName) UnmarshalText(b []byte) error {
	if _, err := NewHasher(string(b)); err != nil {
		return err
	}
	*n = HasherName(b)
	return nil
}

// LayoutName names an offset map layout (New, LayoutNames); "" means
// LayoutSkimpy. Its text form is the name, checked where it is parsed.
type LayoutName string

func (n LayoutName) String() string { return string(n) }

// MarshalText returns the name.
func (n LayoutName) MarshalText() ([]byte, error) { return []byte(n), nil }

// UnmarshalText accepts "" and the names of LayoutNames (any case), kept as
// written.
func (n *LayoutName) UnmarshalText(b []byte) error {
	s := string(b)
	if s != "" && !slices.Contains(layoutNames, strings.ToLower(s)) {
		return fmt.Errorf("offsetmap: unknown offset map layout %q (valid: %s)", s, strings.Join(layoutNames, ", "))
	}
	*n = LayoutName(s)
	return nil
}
