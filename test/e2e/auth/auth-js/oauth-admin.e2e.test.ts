/**
 * auth-js's own OAuth client admin tests ("OAuth Admin" of GoTrueAdminApi), from supabase/supabase-js (MIT),
 * packages/core/auth-js/test/GoTrueApi.test.ts at 381bded5ced48c4621830576bf8cbecc34edc85c, run against a Gantry project.
 * Only their setup is adapted: imports from the published package and vitest, the clients of ./lib/clients.ts
 * pointing at a served project, faker-free mocks in ./lib/utils.ts; every assertion is the original's.
 * Type-checked by auth-js's compiler options, not Gantry's (DOM lib, indexed access), hence no check here.
 */
// @ts-nocheck
import { afterEach, describe, expect, test } from 'vitest'
import { serviceRoleApiClient } from './lib/clients.js'
import { mockOAuthClientParams, mockOAuthUpdateParams } from './lib/utils.js'

describe('GoTrueAdminApi', () => {
  describe('OAuth Admin', () => {
    describe('Core Lifecycle', () => {
      test('oauth client lifecycle: create, get, update, delete', async () => {
        // Create OAuth client
        const createParams = mockOAuthClientParams()
        const { data: createData, error: createError } =
          await serviceRoleApiClient.oauth.createClient(createParams)

        expect(createError).toBeNull()
        expect(createData).not.toBeNull()
        expect(createData?.client_id).toBeDefined()
        expect(createData?.client_secret).toBeDefined() // Secret only returned on creation
        expect(createData?.client_name).toBe(createParams.client_name)

        const clientId = createData!.client_id
        const originalSecret = createData!.client_secret

        // Get OAuth client by ID
        const { data: getData, error: getError } =
          await serviceRoleApiClient.oauth.getClient(clientId)

        expect(getError).toBeNull()
        expect(getData).not.toBeNull()
        expect(getData?.client_id).toBe(clientId)
        expect((getData as any)?.client_secret).toBeUndefined() // Secret NOT returned on get

        // Update OAuth client
        const updateParams = mockOAuthUpdateParams()
        const { data: updateData, error: updateError } =
          await serviceRoleApiClient.oauth.updateClient(clientId, updateParams)

        expect(updateError).toBeNull()
        expect(updateData).not.toBeNull()
        expect(updateData?.client_id).toBe(clientId)
        expect(updateData?.client_name).toBe(updateParams.client_name)
        expect(updateData?.logo_uri).toBe(updateParams.logo_uri)

        // Delete OAuth client
        const { error: deleteError } = await serviceRoleApiClient.oauth.deleteClient(clientId)

        expect(deleteError).toBeNull()

        // Verify deletion - should return error when trying to get
        const { data: deletedData, error: deletedError } =
          await serviceRoleApiClient.oauth.getClient(clientId)

        expect(deletedData).toBeNull()
        expect(deletedError).not.toBeNull()
      })
    })

    describe('Listing & Secret Regeneration', () => {
      let testClientIds: string[] = []

      afterEach(async () => {
        // Clean up test clients
        for (const clientId of testClientIds) {
          await serviceRoleApiClient.oauth.deleteClient(clientId)
        }
        testClientIds = []
      })

      test('listClients() returns registered OAuth clients with pagination', async () => {
        // Create 3 test clients
        for (let i = 0; i < 3; i++) {
          const params = mockOAuthClientParams()
          const { data, error } = await serviceRoleApiClient.oauth.createClient(params)
          expect(error).toBeNull() // Ensure creation succeeds
          if (data?.client_id) {
            testClientIds.push(data.client_id)
          }
        }

        expect(testClientIds.length).toBe(3) // Verify all 3 were created

        // List all clients
        const { data: allData, error: allError } =
          await serviceRoleApiClient.oauth.listClients()

        expect(allError).toBeNull()
        expect(allData).not.toBeNull()
        expect(Array.isArray(allData.clients)).toBe(true)
        expect(allData.clients.length).toBeGreaterThanOrEqual(3)

        // Verify all our test clients are present
        const clientIds = allData.clients.map((client: any) => client.client_id)
        for (const testId of testClientIds) {
          expect(clientIds).toContain(testId)
        }

        // Test pagination
        const { data: pageData, error: pageError } =
          await serviceRoleApiClient.oauth.listClients({
            page: 1,
            perPage: 2,
          })

        expect(pageError).toBeNull()
        expect(pageData).not.toBeNull()
        expect(Array.isArray(pageData.clients)).toBe(true)
        // Pagination should work (may return up to perPage items)
        expect(pageData.clients.length).toBeGreaterThan(0)
      })

      test('regenerateClientSecret() generates new secret', async () => {
        // Create client
        const createParams = mockOAuthClientParams()
        const { data: createData, error: createError } =
          await serviceRoleApiClient.oauth.createClient(createParams)

        expect(createError).toBeNull()
        expect(createData).not.toBeNull()

        const clientId = createData!.client_id
        const originalSecret = createData!.client_secret
        testClientIds.push(clientId)

        // Regenerate secret
        const { data: regenData, error: regenError } =
          await serviceRoleApiClient.oauth.regenerateClientSecret(clientId)

        expect(regenError).toBeNull()
        expect(regenData).not.toBeNull()
        expect(regenData?.client_secret).toBeDefined()
        expect(regenData?.client_secret).not.toBe(originalSecret) // New secret should be different
      })
    })

    describe('Error Handling', () => {
      test('createClient() returns AuthError with invalid redirect_uris', async () => {
        const { data, error } = await serviceRoleApiClient.oauth.createClient({
          client_name: 'Invalid Client',
          redirect_uris: [], // Empty array should fail
        })

        expect(data).toBeNull()
        expect(error).not.toBeNull()
        expect(error?.message).toMatch(/redirect_uris|required|invalid/i)
      })

      test('getClient() returns AuthError for non-existent client', async () => {
        const fakeClientId = '00000000-0000-0000-0000-000000000000'
        const { data, error } = await serviceRoleApiClient.oauth.getClient(fakeClientId)

        expect(data).toBeNull()
        expect(error).not.toBeNull()
      })
    })

    describe('Edge Cases', () => {
      let testClientIds: string[] = []

      afterEach(async () => {
        // Clean up test clients
        for (const clientId of testClientIds) {
          await serviceRoleApiClient.oauth.deleteClient(clientId)
        }
        testClientIds = []
      })

      test('updateClient() accepts partial updates', async () => {
        // Create client
        const createParams = mockOAuthClientParams()
        const { data: createData, error: createError } =
          await serviceRoleApiClient.oauth.createClient(createParams)

        expect(createError).toBeNull()
        expect(createData).not.toBeNull()

        const clientId = createData!.client_id
        testClientIds.push(clientId)

        const originalName = createParams.client_name

        // Update only logo_uri
        const newLogoUri = 'https://example.com/new-logo.png'
        const { data: updateData, error: updateError } =
          await serviceRoleApiClient.oauth.updateClient(clientId, {
            logo_uri: newLogoUri,
          })

        expect(updateError).toBeNull()
        expect(updateData?.logo_uri).toBe(newLogoUri)
        // Name should remain unchanged
        expect(updateData?.client_name).toBe(originalName)
      })

      test('createClient() works with minimal required fields', async () => {
        const minimalParams = {
          client_name: 'Minimal Test Client',
          redirect_uris: ['https://example.com/callback'],
        }

        const { data, error } = await serviceRoleApiClient.oauth.createClient(minimalParams)

        expect(error).toBeNull()
        expect(data).not.toBeNull()
        expect(data?.client_id).toBeDefined()

        if (data?.client_id) {
          testClientIds.push(data.client_id)
        }

        // Verify defaults were applied
        expect(data?.grant_types).toBeDefined()
        expect(data?.response_types).toBeDefined()
      })

      test('createClient() accepts multiple redirect_uris', async () => {
        const params = {
          client_name: 'Multi URI Client',
          redirect_uris: [
            'https://example.com/callback',
            'http://localhost:3000/callback',
            'https://app.example.com/auth',
          ],
        }

        const { data, error } = await serviceRoleApiClient.oauth.createClient(params)

        expect(error).toBeNull()
        expect(data).not.toBeNull()
        expect(data?.redirect_uris).toEqual(params.redirect_uris)

        if (data?.client_id) {
          testClientIds.push(data.client_id)
        }
      })
    })
  })
})
