package bundle

import (
	"fmt"

	"github.com/draconform/draconform/tools/lang/loader"
	"github.com/draconform/draconform/tools/lang/spec"
)

// LoadProduct reads the Product file a bundle certifies and, where the run
// uses a driver profile (profilePath not ""), checks that both name one
// driver: a bundle must not certify one driver with another's cases.
func LoadProduct(productPath, profilePath string) (*spec.Product, error) {
	p, err := loader.LoadProduct(productPath)
	if err != nil {
		return nil, err
	}
	if profilePath == "" {
		return p, nil
	}
	prof, err := loader.LoadProfile(profilePath)
	if err != nil {
		return nil, err
	}
	if prof.Driver != p.Driver {
		return nil, fmt.Errorf("the product's driver is %s, the driver profile's %s: certify the driver the profile describes", p.Driver, prof.Driver)
	}
	return p, nil
}

// WriteSigned writes the bundle of in into dir and, with a key, signs it;
// it returns the command a reviewer checks it with, which depends on
// whether it is signed.
func WriteSigned(dir string, in Inputs, signKey string) (check string, err error) {
	if err := Write(dir, in); err != nil {
		return "", err
	}
	if signKey == "" {
		return "draconform verify-bundle " + dir + "; unsigned, it is self-attested (--sign-key signs it)", nil
	}
	if err := Sign(dir, signKey); err != nil {
		return "", err
	}
	return "draconform verify-bundle --allowed-signers FILE " + dir + ", FILE listing your public key", nil
}
