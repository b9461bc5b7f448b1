package contract

import (
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/partnercommerce/conformance/api"
)

// Spec returns a fresh copy of the embedded openapi.yaml, its operationIds
// spelt as openapi.yaml spells them. The embedded document capitalises them
// (oapi-codegen's Go names); every judge names an operation by the
// document's own id, so reports and checks agree.
func Spec() (*openapi3.T, error) {
	doc, err := api.GetSpec()
	if err != nil {
		return nil, fmt.Errorf("loading the embedded openapi.yaml: %w", err)
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			for _, known := range operationIDs {
				if strings.EqualFold(op.OperationID, known) {
					op.OperationID = known
				}
			}
		}
	}
	return doc, nil
}
