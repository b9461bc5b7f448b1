package contract

import (
	"fmt"
	"strconv"
	"sync"
)

// The operations of the document, by their operationId in openapi.yaml.
const (
	OpListProducts       = "listProducts"
	OpSyncProducts       = "syncProducts"
	OpGetCustomerProfile = "getCustomerProfile"
	OpProvisionAccount   = "provisionAccount"
	OpListPaymentMethods = "listPaymentMethods"
	OpCreatePayment      = "createPayment"
	OpGetPaymentStatus   = "getPaymentStatus"
)

var operationIDs = []string{OpListProducts, OpSyncProducts, OpGetCustomerProfile, OpProvisionAccount,
	OpListPaymentMethods, OpCreatePayment, OpGetPaymentStatus}

// Operation is one endpoint of the document: its method, its path and the
// HTTP status codes documented for it (the `default` response is not a
// documented code).
type Operation struct {
	ID     string
	Method string
	Path   string
	Codes  map[int]bool
}

// Documents reports whether code is documented for o.
func (o Operation) Documents(code int) bool { return o.Codes[code] }

var (
	operationsOnce sync.Once
	operations     map[string]Operation
	operationsErr  error
)

// Operations returns the operations of the embedded OpenAPI document by
// operationId, read once.
func Operations() (map[string]Operation, error) {
	operationsOnce.Do(func() {
		spec, err := Spec()
		if err != nil {
			operationsErr = err
			return
		}
		out := map[string]Operation{}
		for path, item := range spec.Paths.Map() {
			for method, op := range item.Operations() {
				if op.OperationID == "" {
					operationsErr = fmt.Errorf("openapi: %s %s has no operationId", method, path)
					return
				}
				codes := map[int]bool{}
				for k := range op.Responses.Map() {
					if c, err := strconv.Atoi(k); err == nil {
						codes[c] = true
					}
				}
				id := op.OperationID
				out[id] = Operation{ID: id, Method: method, Path: path, Codes: codes}
			}
		}
		for _, id := range operationIDs {
			if _, ok := out[id]; !ok {
				operationsErr = fmt.Errorf("openapi: no operation %s", id)
				return
			}
		}
		operations = out
	})
	return operations, operationsErr
}

// MustOperation returns operation id; it panics when the embedded document
// lacks it, which the package's tests rule out.
func MustOperation(id string) Operation {
	ops, err := Operations()
	if err != nil {
		panic(err)
	}
	op, ok := ops[id]
	if !ok {
		panic("contract: no operation " + id)
	}
	return op
}
