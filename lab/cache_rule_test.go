package lab

import (
	"encoding/json"
	"testing"
)

// TestEmptyCacheMeansCold pins the documented default of the page-cache
// state: an empty value (a flag, a JSON or YAML field left empty) is cold,
// by every way it is read.
func TestEmptyCacheMeansCold(t *testing.T) {
	if c, err := ParseCacheState(""); err != nil || c != CacheCold {
		t.Errorf("ParseCacheState(\"\") = %q, %v; want cold", c, err)
	}
	var c CacheState = CacheWarm
	if err := c.Set(""); err != nil || c != CacheCold {
		t.Errorf("flag value \"\": %q, %v; want cold", c, err)
	}
	var v struct {
		Cache CacheState `json:"cache"`
	}
	v.Cache = CacheWarm
	if err := json.Unmarshal([]byte(`{"cache": ""}`), &v); err != nil || v.Cache != CacheCold {
		t.Errorf("JSON \"cache\": \"\": %q, %v; want cold", v.Cache, err)
	}
	if _, err := ParseCacheState("tepid"); err == nil {
		t.Error("ParseCacheState(\"tepid\") succeeded")
	}
}
