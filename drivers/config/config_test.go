package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"
)

var quantityEqual = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })

// malformedConfigs must each fail with exactly these problems, at
// config.yaml:line. FuzzParse starts from them too.
var malformedConfigs = map[string]struct {
	yaml string
	want string
}{
	"empty": {
		yaml: ``,
		want: `config.yaml:1: devices: Required value: at least one device`,
	},
	"unknown top-level field": {
		yaml: "device:\n- name: a\n",
		want: `config.yaml:1: decode: error unmarshaling JSON: while decoding JSON: json: unknown field "device"`,
	},
	"unknown device field": {
		yaml: "devices:\n- name: a\n  capacty: {}\n",
		want: `config.yaml:3: decode: error unmarshaling JSON: while decoding JSON: json: unknown field "capacty"`,
	},
	"duplicate key": {
		yaml: "devices:\n- name: a\n  name: b\n",
		want: `config.yaml:3: decode: error converting YAML to JSON: yaml: unmarshal errors:
  line 3: key "name" already set in map`,
	},
	"wrong type": {
		yaml: "devices:\n- name: a\n  allowMultipleAllocations: yes please\n",
		want: `config.yaml:3: decode: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field Device.devices.allowMultipleAllocations of type bool`,
	},
	"bad quantity": {
		yaml: "devices:\n- name: a\n  capacity:\n    shares: {value: four}\n",
		want: `config.yaml:4: decode: error unmarshaling JSON: while decoding JSON: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
	},
	"missing name": {
		yaml: "devices:\n- capacity: {shares: {value: 1}}\n",
		want: `config.yaml:2: devices[0].name: Required value`,
	},
	"invalid name": {
		yaml: "devices:\n- name: Shared_0\n",
		want: `config.yaml:2: devices[0].name: Invalid value: "Shared_0": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
	},
	"duplicate name": {
		yaml: "devices:\n- name: a\n- name: a\n",
		want: `config.yaml:3: devices[1].name: Duplicate value: "a"`,
	},
	"attribute of wrong type": {
		yaml: "devices:\n- name: a\n  attributes: {ratio: 1.5}\n",
		want: `config.yaml:3: devices[0].attributes[ratio]: Invalid value: "1.5": must be a string, an integer or a boolean`,
	},
	"attribute list": {
		yaml: "devices:\n- name: a\n  attributes: {models: [x, z]}\n",
		want: `config.yaml:3: devices[0].attributes[models]: Invalid value: "[\"x\",\"z\"]": must be a string, an integer or a boolean`,
	},
	"invalid attribute name": {
		yaml: "devices:\n- name: a\n  attributes: {my-model: x}\n",
		want: `config.yaml:3: devices[0].attributes[my-model]: Invalid value: "my-model": a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')`,
	},
	"empty capacity domain": {
		yaml: "devices:\n- name: a\n  capacity: {/shares: {value: 1}}\n",
		want: `config.yaml:3: devices[0].capacity[/shares]: Invalid value: "/shares": the domain must not be empty`,
	},
	"missing capacity value": {
		yaml: "devices:\n- name: a\n  capacity: {shares: {requestPolicy: {default: 1}}}\n",
		want: `config.yaml:3: devices[0].capacity[shares].value: Required value`,
	},
	"negative capacity": {
		yaml: "devices:\n- name: a\n  capacity: {shares: {value: -1}}\n",
		want: `config.yaml:3: devices[0].capacity[shares].value: Invalid value: "-1": must not be negative`,
	},
	"colliding environment names": {
		yaml: "devices:\n- name: a\n  capacity: {x_y_a: {value: 1}, x.y/a: {value: 1}}\n",
		want: `config.yaml:3: devices[0].capacity[x_y_a]: Invalid value: "x_y_a": has the same environment name X_Y_A as capacity "x.y/a"`,
	},
	"validValues and validRange": {
		yaml: "devices:\n- name: a\n  capacity: {shares: {value: 4, requestPolicy: {default: 1, validValues: [1], validRange: {min: 1}}}}\n",
		want: `config.yaml:3: devices[0].capacity[shares].requestPolicy: Forbidden: validValues and validRange are mutually exclusive`,
	},
	"default above capacity": {
		yaml: "devices:\n- name: a\n  capacity: {bandwidth: {value: 1Gi, requestPolicy: {default: 2Gi}}}\n",
		want: `config.yaml:3: devices[0].capacity[bandwidth].requestPolicy.default: Invalid value: "2Gi": must not be larger than the capacity value 1Gi`,
	},
	"validValues without default": {
		yaml: "devices:\n- name: a\n  capacity: {shares: {value: 4, requestPolicy: {validValues: [1, 2]}}}\n",
		want: `config.yaml:3: devices[0].capacity[shares].requestPolicy.default: Required value: required when validValues is set`,
	},
	"validValues unsorted, too large, default missing": {
		yaml: "devices:\n- name: a\n  capacity:\n    shares:\n      value: 4\n      requestPolicy:\n        default: 3\n        validValues:\n        - 2\n        - 1\n        - 8\n",
		want: `config.yaml:7: devices[0].capacity[shares].requestPolicy.default: Invalid value: "3": must be one of validValues
config.yaml:10: devices[0].capacity[shares].requestPolicy.validValues[1]: Invalid value: "1": must be larger than the value before it
config.yaml:11: devices[0].capacity[shares].requestPolicy.validValues[2]: Invalid value: "8": must not be larger than the capacity value 4`,
	},
	"validRange without min": {
		yaml: "devices:\n- name: a\n  capacity: {shares: {value: 4, requestPolicy: {default: 1, validRange: {max: 4}}}}\n",
		want: `config.yaml:3: devices[0].capacity[shares].requestPolicy.validRange.min: Required value: required when validRange is set`,
	},
	"validRange bounds": {
		yaml: "devices:\n- name: a\n  capacity: {shares: {value: 4, requestPolicy: {default: 1, validRange: {min: 2, max: 5}}}}\n",
		want: `config.yaml:3: devices[0].capacity[shares].requestPolicy.default: Invalid value: "1": must not be less than validRange.min 2
config.yaml:3: devices[0].capacity[shares].requestPolicy.validRange.max: Invalid value: "5": must not be larger than the capacity value 4`,
	},
	"validRange step": {
		yaml: "devices:\n- name: a\n  capacity: {shares: {value: 4, requestPolicy: {default: 2, validRange: {min: 1, max: 4, step: 2}}}}\n",
		want: `config.yaml:3: devices[0].capacity[shares].requestPolicy.default: Invalid value: "2": must be min 1 plus a multiple of step 2
config.yaml:3: devices[0].capacity[shares].requestPolicy.validRange.max: Invalid value: "4": must be min 1 plus a multiple of step 2`,
	},
	"validRange zero step": {
		yaml: "devices:\n- name: a\n  capacity: {shares: {value: 4, requestPolicy: {default: 1, validRange: {min: 1, step: 0}}}}\n",
		want: `config.yaml:3: devices[0].capacity[shares].requestPolicy.validRange.step: Invalid value: "0": must be greater than zero`,
	},
}

func TestParseMalformed(t *testing.T) {
	for name, tc := range malformedConfigs {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml))
			if err == nil {
				t.Fatalf("Parse succeeded, want error %s", tc.want)
			}
			if err.Error() != tc.want {
				t.Errorf("error:\n got: %s\nwant: %s", err, tc.want)
			}
		})
	}
}

func TestLoadNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte("devices: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	want := path + ":1: devices: Required value: at least one device"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
	_, err = Load(filepath.Join(t.TempDir(), "missing.yaml"))
	if err == nil || !strings.HasPrefix(err.Error(), "read config: open ") {
		t.Errorf("error = %v, want read config: open ...", err)
	}
}

func TestParseAttributes(t *testing.T) {
	cfg, err := Parse([]byte(`devices:
- name: a
  attributes:
    model: x100
    quoted: "42"
    cores: 8
    fast: true
`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Attribute{
		"model":  StringAttribute("x100"),
		"quoted": StringAttribute("42"),
		"cores":  IntAttribute(8),
		"fast":   BoolAttribute(true),
	}
	if diff := cmp.Diff(want, cfg.Devices[0].Attributes, cmp.AllowUnexported(Attribute{})); diff != "" {
		t.Errorf("attributes (-want +got):\n%s", diff)
	}
}

func TestMarshalRoundTrips(t *testing.T) {
	withAttributes := Default()
	withAttributes.Devices[1].Attributes = map[string]Attribute{
		"model":       StringAttribute("x100"),
		"numeric":     StringAttribute("42"),
		"looksBool":   StringAttribute("true"),
		"yamlYes":     StringAttribute("y"),
		"cores":       IntAttribute(-8),
		"accelerated": BoolAttribute(false),
	}
	for name, cfg := range map[string]*Config{"default": Default(), "attributes": withAttributes} {
		t.Run(name, func(t *testing.T) {
			if err := cfg.Validate(); err != nil {
				t.Fatalf("config is invalid: %v", err)
			}
			data, err := Marshal(cfg)
			if err != nil {
				t.Fatal(err)
			}
			parsed, err := Parse(data)
			if err != nil {
				t.Fatalf("Parse(Marshal(cfg)): %v\n%s", err, data)
			}
			if diff := cmp.Diff(cfg, parsed, quantityEqual, cmp.AllowUnexported(Attribute{})); diff != "" {
				t.Errorf("round trip (-want +got):\n%s\n%s", diff, data)
			}
		})
	}
}
