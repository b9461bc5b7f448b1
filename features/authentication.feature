@authentication
Feature: Authentication
  Every call carries the partner's secret key; every call except account
  provisioning also carries the bearer token of one account. Failures answer
  401 with the message of the endpoint group (sections 5 and 7 of the
  document).

  Scenario Outline: The product endpoints refuse bad credentials (<endpoint>, <problem>)
    Given the partner's main account
    When the partner calls <endpoint> with <problem>
    Then the request is refused with status 401 and the message "<message>"

    Examples:
      | endpoint         | problem           | message                                    |
      | the product list | a wrong secret key | Secret Key tidak valid.                   |
      | the product list | no token          | Token wajib diisi.                         |
      | the product list | an invalid token  | Token tidak valid atau sudah kedaluwarsa.  |
      | the product sync | a wrong secret key | Secret Key tidak valid.                   |
      | the product sync | no token          | Token wajib diisi.                         |
      | the product sync | an invalid token  | Token tidak valid atau sudah kedaluwarsa.  |

  Scenario Outline: The customer and payment endpoints refuse a missing or invalid token (<endpoint>, <problem>)
    Given a cashier provisioned by the partner
    When the partner calls <endpoint> with <problem>
    Then the request is refused with status 401 and the message "<message>"

    Examples:
      | endpoint             | problem          | message            |
      | the profile          | no token         | Token wajib diisi. |
      | the profile          | an invalid token | Token tidak valid. |
      | the payment methods  | no token         | Token wajib diisi. |
      | the payment methods  | an invalid token | Token tidak valid. |
      | the payment creation | no token         | Token wajib diisi. |
      | the payment creation | an invalid token | Token tidak valid. |
      | the payment status   | no token         | Token wajib diisi. |
      | the payment status   | an invalid token | Token tidak valid. |

  Scenario Outline: The customer and payment endpoints refuse a wrong secret key (<endpoint>)
    Given a cashier provisioned by the partner
    When the partner calls <endpoint> with a wrong secret key
    Then the request is refused with status 401 and a message beginning "Akses ditolak"

    Examples:
      | endpoint             |
      | the profile          |
      | the payment methods  |
      | the payment creation |
      | the payment status   |

  Scenario: Provisioning with a wrong secret key is refused
    When the partner provisions a new cashier account with a wrong secret key
    Then the request is refused with status 401 and a message beginning "Akses ditolak"

  @isolation
  Scenario Outline: A token is refused with another partner's secret key (<endpoint>)
    Given a cashier provisioned by the partner
    When the cashier calls <endpoint> with the other partner's secret key
    Then the request is refused with status 401 and a message of its endpoint group

    Examples:
      | endpoint             |
      | the product list     |
      | the profile          |
      | the payment methods  |
      | the payment status   |
