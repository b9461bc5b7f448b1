@payment-methods
Feature: Payment methods
  A customer account reads the payment methods it may pay with (sections 2.4,
  4.5 and 7 of the document). Method 0 is payment with balance and coins and
  need not be listed.

  Scenario: A cashier lists the payment methods with every documented field
    Given a cashier provisioned by the partner
    When the cashier lists the payment methods
    Then the answer comes back with status 200 and the message "OK"
    And every payment method has its documented fields

  Scenario: The payment methods come back as JSON, labelled application/json
    Given a cashier provisioned by the partner
    When the cashier lists the payment methods
    Then the answer is JSON, labelled Content-Type application/json
