import { Badge, Flex } from '@radix-ui/themes';
import { SecondFactorPolicyForm } from '../../shared/accounts/factors/second-factor-policy.tsx';
import { nameOf, PeopleList } from '../../shared/accounts/people-list.tsx';
import { SsoSettings } from '../../shared/accounts/sso/sso-settings.tsx';
import { useResource } from '../../shared/use-resource.ts';
import { dashboardApi } from '../api.ts';
import { ROLES } from '../roles.ts';
import { useSignedIn } from '../session.tsx';

/**
 * Settings → People: who can sign in to the instance, with their role and whether they accepted their
 * invitation; admins invite people by e-mail, change their roles, mail an invitation again and remove them (not
 * themselves), end their sessions and reset their two-step sign-in, each greyed with the server's reason when it
 * cannot work now (the last admin's own role); and they set who must use two-step sign-in.
 */
export function PeoplePage() {
  const signedIn = useSignedIn();
  const { user, tenant: instance } = signedIn;
  const slug = instance.slug;
  const people = useResource(dashboardApi, 'GET /instances/:slug/people', { params: { slug } });

  return (
    <Flex direction="column" gap="6">
      <PeopleList
        title="People"
        signedIn={signedIn}
        people={people}
        roles={ROLES}
        status={(person) =>
          person.active ? null : (
            <Badge color="amber" highContrast>
              Invited
            </Badge>
          )
        }
        manage={
          user.role === 'admin'
            ? {
                initialRole: 'member',
                invite: async (invitation) =>
                  (await dashboardApi('POST /instances/:slug/people', { params: { slug }, body: invitation }))
                    .person,
                actions: ({ actions }) => ({ ...actions, end: actions.remove }),
                changeRole: async (person, role) => {
                  await dashboardApi('PUT /instances/:slug/people/:id/role', {
                    params: { slug, id: person.id },
                    body: { role },
                  });
                },
                resendInvitation: async (person) => {
                  await dashboardApi('POST /instances/:slug/people/:id/invitation', {
                    params: { slug, id: person.id },
                  });
                },
                endSessions: async (person) =>
                  (
                    await dashboardApi('POST /instances/:slug/people/:id/sessions/end', {
                      params: { slug, id: person.id },
                    })
                  ).sessionsEnded,
                resetFactors: (person) =>
                  dashboardApi('POST /instances/:slug/people/:id/factors/reset', {
                    params: { slug, id: person.id },
                  }),
                end: {
                  verb: 'Remove',
                  done: 'removed',
                  consequences: (person) => (
                    <>
                      {nameOf(person)} is signed out at once and can no longer sign in to {instance.name}.
                      Keys they generated keep working until an admin revokes them.
                    </>
                  ),
                  send: async (person) => {
                    await dashboardApi('DELETE /instances/:slug/people/:id', {
                      params: { slug, id: person.id },
                    });
                  },
                },
              }
            : undefined
        }
        notAllowed="Only admins invite and remove people."
      >
        Everyone here signs in to {instance.name}&apos;s dashboard with their own password.
      </PeopleList>
      {user.role === 'admin' ? (
        <SecondFactorPolicyForm
          roles={ROLES}
          read={() => dashboardApi('GET /instances/:slug/security/second-factor', { params: { slug } })}
          save={(policy) =>
            dashboardApi('PUT /instances/:slug/security/second-factor', { params: { slug }, body: policy })
          }
        />
      ) : null}
      {user.role === 'admin' ? <InstanceSso slug={slug} /> : null}
    </Flex>
  );
}

/** The instance's single sign-on, for admins (the shared section, on the dashboard's routes). */
function InstanceSso({ slug }: { slug: string }) {
  const settings = useResource(dashboardApi, 'GET /instances/:slug/sso', { params: { slug } });
  return (
    <SsoSettings
      settings={settings}
      save={(body) => dashboardApi('PUT /instances/:slug/sso', { params: { slug }, body })}
      remove={async () => {
        await dashboardApi('DELETE /instances/:slug/sso', { params: { slug } });
      }}
      roles={ROLES}
      people="the people of your firm"
    />
  );
}
