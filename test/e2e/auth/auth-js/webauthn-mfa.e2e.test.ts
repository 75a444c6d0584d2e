/**
 * The "WebAuthn MFA" block of auth-js's own GoTrueClient suite, from supabase/supabase-js (MIT),
 * packages/core/auth-js/test/GoTrueClient.test.ts at 381bded5ced48c4621830576bf8cbecc34edc85c (lines 1879-2094),
 * run against a Gantry project. Only its setup is adapted: imports from the installed package
 * and vitest, jest's mocks as vitest's, and authWithSession built as auth-js's test/lib/clients.ts
 * builds it, on the served project of ./lib/clients.ts; every assertion is the original's.
 * Type-checked by auth-js's compiler options, not Gantry's (DOM lib), hence no check here.
 */
// @ts-nocheck
import { afterAll, beforeEach, describe, expect, test, vi } from 'vitest'
import { GoTrueClient } from '@supabase/auth-js'
import { base64UrlToUint8Array } from '@supabase/auth-js/dist/main/lib/base64url.js'
import {
  deserializeCredentialCreationOptions,
  deserializeCredentialRequestOptions,
  serializeCredentialCreationResponse,
  serializeCredentialRequestResponse,
} from '@supabase/auth-js/dist/main/lib/webauthn.js'
import { GOTRUE_URL_SIGNUP_ENABLED_AUTO_CONFIRM_ON, SUPABASE_PUBLISHABLE_KEY } from './lib/clients.js'
import { mockUserCredentials } from './lib/utils.js'
import { webauthnCreationCredentialResponse, webauthnCreationMockCredential } from './webauthn.fixtures.js'

class MemoryStorage {
  private _storage: { [name: string]: string } = {}

  async setItem(name: string, value: string) {
    this._storage[name] = value
  }

  async getItem(name: string): Promise<string | null> {
    return this._storage[name] || null
  }

  async removeItem(name: string) {
    delete this._storage[name]
  }
}

const authWithSession = new GoTrueClient({
  url: GOTRUE_URL_SIGNUP_ENABLED_AUTO_CONFIRM_ON,
  headers: { apikey: SUPABASE_PUBLISHABLE_KEY },
  autoRefreshToken: false,
  persistSession: true,
  storage: new MemoryStorage(),
})

describe('WebAuthn MFA', () => {
  beforeEach(() => {
    // Setup navigator.credentials mock
    if (!global.navigator) {
      global.navigator = {} as Navigator
    }

    // Mock navigator.credentials using Object.defineProperty since it's read-only
    Object.defineProperty(global.navigator, 'credentials', {
      value: {
        create: vi.fn(),
        get: vi.fn(),
        store: vi.fn(),
        preventSilentAccess: vi.fn(),
      },
      writable: false,
      configurable: true,
    })

    // Mock PublicKeyCredential as a proper class so instanceof checks work
    class PublicKeyCredentialMock implements Partial<PublicKeyCredentialFuture> {
      readonly id: string
      readonly rawId: ArrayBuffer
      readonly type: PublicKeyCredentialType = 'public-key'
      readonly response: AuthenticatorResponse
      readonly authenticatorAttachment: AuthenticatorAttachment | null

      constructor(data: {
        id: string
        rawId: string | ArrayBuffer
        type: PublicKeyCredentialType
        response: AuthenticatorResponse
        authenticatorAttachment?: AuthenticatorAttachment | null
      }) {
        this.id = data.id
        this.rawId =
          typeof data.rawId === 'string' ? base64UrlToUint8Array(data.rawId).buffer : data.rawId
        this.response = data.response
        this.authenticatorAttachment = data.authenticatorAttachment ?? null
      }

      getClientExtensionResults(): AuthenticationExtensionsClientOutputs {
        return {}
      }

      toJSON(): PublicKeyCredentialJSON {
        // Use the proper serialization functions based on response type
        if ('attestationObject' in this.response) {
          // Registration response
          return serializeCredentialCreationResponse(this as any)
        } else if ('signature' in this.response) {
          // Authentication response
          return serializeCredentialRequestResponse(this as any)
        }
        throw new Error('Unknown Credential Type')
      }

      static isUserVerifyingPlatformAuthenticatorAvailable = vi.fn().mockResolvedValue(true)
      static isConditionalMediationAvailable = vi.fn().mockResolvedValue(true)
      static parseCreationOptionsFromJSON = deserializeCredentialCreationOptions
      static parseRequestOptionsFromJSON = deserializeCredentialRequestOptions
    }

    ;(global as any).PublicKeyCredential = PublicKeyCredentialMock
  })

  afterAll(() => {
    // @ts-ignore
    delete global.navigator
    // @ts-ignore
    delete global.PublicKeyCredential
  })

  const setupUserWithWebAuthn = async () => {
    const { email, password } = mockUserCredentials()
    const { data: signUpData, error: signUpError } = await authWithSession.signUp({
      email,
      password,
    })
    expect(signUpError).toBeNull()
    expect(signUpData.session).not.toBeNull()

    await authWithSession.initialize()

    const { error: signInError } = await authWithSession.signInWithPassword({
      email,
      password,
    })
    expect(signInError).toBeNull()

    return { email, password }
  }

  test('enroll WebAuthn should fail without session', async () => {
    await authWithSession.signOut()
    const { data, error } = await authWithSession.mfa.webauthn.enroll({
      friendlyName: 'Test Device',
    })

    expect(error).not.toBeNull()
    expect(error?.message).toContain('Bearer token')
    expect(data).toBeNull()
  })

  test('enroll WebAuthn should allow empty friendlyName', async () => {
    await setupUserWithWebAuthn()
    const { data, error } = await authWithSession.mfa.webauthn.enroll({
      friendlyName: '',
    })

    // Server allows empty friendlyName
    expect(error).toBeNull()
    expect(data).not.toBeNull()
    expect(data?.type).toBe('webauthn')
  })

  test('enroll WebAuthn should create unverified factor', async () => {
    await setupUserWithWebAuthn()
    const { data, error } = await authWithSession.mfa.webauthn.enroll({
      friendlyName: 'Test Security Key',
    })

    expect(error).toBeNull()
    expect(data).not.toBeNull()
    expect(data?.id).toBeDefined()
    expect(data?.type).toBe('webauthn')
    expect(data?.friendly_name).toBe('Test Security Key')
  })

  test('challenge WebAuthn should fail without session', async () => {
    await authWithSession.signOut()
    const { data, error } = await authWithSession.mfa.webauthn.challenge({
      factorId: 'test-factor-id',
      webauthn: {
        rpId: 'localhost',
        rpOrigins: ['http://localhost:9999'],
      },
    })

    expect(error).not.toBeNull()
    expect(error?.message).toContain('Bearer token')
    expect(data).toBeNull()
  })

  test('challenge WebAuthn should fail with invalid factorId', async () => {
    await setupUserWithWebAuthn()
    const { data, error } = await authWithSession.mfa.webauthn.challenge({
      factorId: 'invalid-factor-id',
      webauthn: {
        rpId: 'localhost',
        rpOrigins: ['http://localhost:9999'],
      },
    })

    expect(error).not.toBeNull()
    expect(data).toBeNull()
  })

  test('verify WebAuthn should fail without session', async () => {
    await authWithSession.signOut()
    const { data, error } = await authWithSession.mfa.webauthn.verify({
      factorId: webauthnCreationCredentialResponse.factorId,
      challengeId: webauthnCreationCredentialResponse.challengeId,
      webauthn: {
        type: 'create',
        rpId: webauthnCreationCredentialResponse.rpId,
        rpOrigins: [webauthnCreationCredentialResponse.origin],
        credential_response: webauthnCreationMockCredential,
      },
    })

    expect(error).not.toBeNull()
    expect(error?.message).toContain('Bearer token')
    expect(data).toBeNull()
  })

  test('unenroll WebAuthn should remove factor', async () => {
    await setupUserWithWebAuthn()

    const { data: enrollData } = await authWithSession.mfa.webauthn.enroll({
      friendlyName: 'Test Device',
    })

    if (!enrollData) {
      throw new Error('Failed to enroll WebAuthn factor')
    }

    const { error: unenrollError } = await authWithSession.mfa.unenroll({
      factorId: enrollData.id,
    })

    expect(unenrollError).toBeNull()

    // Wait for unenrollment to be processed
    await new Promise((resolve) => setTimeout(resolve, 1000))

    // Verify factor was removed
    const { data: factorsData } = await authWithSession.mfa.listFactors()
    const webauthnFactors = factorsData?.all.filter((f) => f.factor_type === 'webauthn') || []
    expect(webauthnFactors).toHaveLength(0)
  })

  test('should enroll WebAuthn factor', async () => {
    await setupUserWithWebAuthn()

    const { data: enrollData, error: enrollError } = await authWithSession.mfa.webauthn.enroll({
      friendlyName: 'Test Yubikey',
    })

    expect(enrollError).toBeNull()
    expect(enrollData).not.toBeNull()
    expect(enrollData?.type).toBe('webauthn')
    expect(enrollData?.id).toBeDefined()
    expect(enrollData?.friendly_name).toBe('Test Yubikey')
  })
})
