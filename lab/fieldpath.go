package lab

import (
	"reflect"
	"strings"
)

// FieldPathAt returns the path of the leaf field of *e whose address is
// addr, in the names the experiment's JSON and YAML use ("workload.Keys",
// "log.segment.bytes" ...: each struct field's json tag name, or its Go
// name when it has none, joined by dots); "" when no leaf field of e is at
// addr. A struct with an IsFixed method (a size distribution) is one leaf.
// The flag binders use it to name the field a flag sets.
func FieldPathAt(e *Experiment, addr uintptr) string {
	return pathAt(reflect.ValueOf(e).Elem(), addr, "")
}

// pathAt finds the leaf field of v at address addr.
func pathAt(v reflect.Value, addr uintptr, prefix string) string {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "" {
			name = sf.Name
		}
		if !sf.IsExported() || name == "-" {
			continue
		}
		fv := v.Field(i)
		path := prefix + name
		if fv.Kind() == reflect.Struct && fv.NumField() > 0 && !isLeafStruct(fv) {
			if p := pathAt(fv, addr, path+"."); p != "" {
				return p
			}
			continue
		}
		if fv.Addr().Pointer() == addr {
			return path
		}
	}
	return ""
}

// isLeafStruct: struct fields a flag sets whole (a size distribution).
func isLeafStruct(v reflect.Value) bool {
	_, ok := v.Addr().Interface().(interface{ IsFixed() bool })
	return ok
}
